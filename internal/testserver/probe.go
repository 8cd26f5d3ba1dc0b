package testserver

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// probeTimeout bounds one probe when the caller's ctx has no deadline.
const probeTimeout = time.Second

// dial connects to addr with ctx's deadline (or probeTimeout) on the
// connection.
func dial(ctx context.Context, addr string) (net.Conn, error) {
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(probeTimeout)
	}
	d := net.Dialer{Deadline: deadline}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	_ = conn.SetDeadline(deadline)
	return conn, nil
}

// redisPing succeeds when the Redis server at addr answers PONG.
func redisPing(ctx context.Context, addr string) error {
	return redisPingVia(ctx, dial, addr)
}

// redisPingVia succeeds when the Redis server at addr, reached through d,
// answers PONG.
func redisPingVia(ctx context.Context, d dialFunc, addr string) error {
	reply, err := redisText(redisDo(ctx, d, addr, "PING"))
	if err != nil {
		return err
	}
	if reply != "PONG" {
		return fmt.Errorf("PING answered %q", reply)
	}
	return nil
}

// fourLetter sends a ZooKeeper four-letter-word command and returns the
// whole answer.
func fourLetter(ctx context.Context, addr, cmd string) (string, error) {
	return fourLetterTLS(ctx, addr, cmd, nil)
}

// fourLetterTLS is [fourLetter] over TLS with cfg, or in plain text when cfg
// is nil.
func fourLetterTLS(ctx context.Context, addr, cmd string, cfg *tls.Config) (string, error) {
	conn, err := dial(ctx, addr)
	if err != nil {
		return "", err
	}
	if cfg != nil {
		if cfg.ServerName == "" {
			cfg = cfg.Clone()
			cfg.ServerName, _, _ = net.SplitHostPort(addr)
		}
		tc := tls.Client(conn, cfg)
		if err := tc.HandshakeContext(ctx); err != nil {
			_ = conn.Close()
			return "", err
		}
		conn = tc
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, cmd); err != nil {
		return "", err
	}
	b, err := io.ReadAll(conn)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// httpJSON calls url (POST with body when body is not nil, else GET) and
// decodes the JSON answer into out. Keep-alives are off so no connection
// goroutine outlives the call.
func httpJSON(ctx context.Context, url string, body []byte, out any) error {
	return httpsJSON(ctx, nil, url, body, out)
}

// httpsJSON is [httpJSON] with a TLS client configuration (nil: the
// default) for https URLs.
func httpsJSON(ctx context.Context, cfg *tls.Config, url string, body []byte, out any) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, probeTimeout)
		defer cancel()
	}
	method := http.MethodGet
	var rd io.Reader
	if body != nil {
		method, rd = http.MethodPost, bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return err
	}
	tr := &http.Transport{DisableKeepAlives: true, TLSClientConfig: cfg}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s: %s", url, resp.Status, bytes.TrimSpace(b))
	}
	return json.Unmarshal(b, out)
}
