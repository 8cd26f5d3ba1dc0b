package main

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
)

// embeddedEtcd is a single-node etcd server inside this process, with its
// data in a temporary directory and its ports on loopback: the demo needs
// no install.
type embeddedEtcd struct {
	srv *embed.Etcd
	dir string
}

// startEtcd starts the embedded server and waits until it serves.
func startEtcd() (*embeddedEtcd, error) {
	dir, err := os.MkdirTemp("", "lock4go-demo-etcd-")
	if err != nil {
		return nil, err
	}
	cfg := embed.NewConfig()
	cfg.Dir = dir
	cfg.Logger = "zap"
	cfg.LogLevel = "error"
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	client, peer, err := freeURLs()
	if err != nil {
		return nil, err
	}
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{client}, []url.URL{client}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{peer}, []url.URL{peer}
	cfg.InitialCluster = cfg.Name + "=" + peer.String()
	srv, err := embed.StartEtcd(cfg)
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("start embedded etcd: %w", err)
	}
	select {
	case <-srv.Server.ReadyNotify():
	case <-time.After(30 * time.Second):
		srv.Close()
		os.RemoveAll(dir)
		return nil, fmt.Errorf("embedded etcd not ready after 30s")
	}
	return &embeddedEtcd{srv: srv, dir: dir}, nil
}

// Endpoint returns the client URL.
func (e *embeddedEtcd) Endpoint() string { return e.srv.Clients[0].Addr().String() }

// Close stops the server and removes its data.
func (e *embeddedEtcd) Close() {
	e.srv.Close()
	os.RemoveAll(e.dir)
}

// freeURLs returns two loopback URLs on ports free right now.
func freeURLs() (client, peer url.URL, err error) {
	var ports [2]int
	for i := range ports {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return client, peer, err
		}
		ports[i] = l.Addr().(*net.TCPAddr).Port
		l.Close()
	}
	client = url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", ports[0])}
	peer = url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", ports[1])}
	return client, peer, nil
}
