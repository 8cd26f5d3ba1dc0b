package main

import (
	"context"
	"net"
	"net/http"
	"time"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/lockdebug"
)

// debugServer serves /debug/locks for one instance on a port of its own,
// as a service would on its internal admin port, never beside its public
// endpoints.
type debugServer struct {
	URL string
	srv *http.Server
}

func startDebug(tpl *lock4go.Template) (*debugServer, error) {
	mux := http.NewServeMux()
	mux.Handle("GET /debug/locks", lockdebug.Handler(tpl))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	d := &debugServer{
		URL: "http://" + l.Addr().String() + "/debug/locks",
		srv: &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second},
	}
	go d.srv.Serve(l)
	return d, nil
}

// Close stops the server.
func (d *debugServer) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = d.srv.Shutdown(ctx)
}
