package testserver

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Proxy is a loopback TCP proxy in front of one server, for fault tests:
// clients connect to [Proxy.Addr] instead of the server, and the test cuts
// their connections, blackholes them or drops the server's replies. It is
// safe for concurrent use.
type Proxy struct {
	target    string
	ln        net.Listener
	blackhole atomic.Bool
	dropReply atomic.Bool
	wg        sync.WaitGroup

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
}

// NewProxy listens on a free loopback port and forwards every connection to
// target.
func NewProxy(target string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("testserver: proxy: %w", err)
	}
	p := &Proxy{target: target, ln: ln, conns: make(map[net.Conn]struct{})}
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// Addr returns the address clients connect to, "127.0.0.1:PORT".
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Cut closes every current connection, both ways, as a network failure
// would. New connections are accepted as usual.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		_ = c.Close()
	}
}

// SetBlackhole turns the blackhole on or off. While it is on, connections
// stay open and new ones are accepted, but nothing is forwarded either way:
// the bytes are discarded, so the peers see silence, as behind a network
// partition.
func (p *Proxy) SetBlackhole(on bool) { p.blackhole.Store(on) }

// SetDropReplies turns reply dropping on or off. While it is on, bytes from
// the client reach the server but the server's bytes are discarded: requests
// take effect and their replies are lost.
func (p *Proxy) SetDropReplies(on bool) { p.dropReply.Store(on) }

// Close stops accepting, closes every connection and waits for the proxy's
// goroutines to end. Later calls do nothing.
func (p *Proxy) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	err := p.ln.Close()
	for c := range p.conns {
		_ = c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
	return err
}

// accept serves new connections until the listener closes.
func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		client, err := p.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		p.wg.Add(1)
		go p.serve(client)
	}
}

// serve connects client to the target and pumps bytes both ways until
// either side closes or the connection is cut.
func (p *Proxy) serve(client net.Conn) {
	defer p.wg.Done()
	if !p.track(client) {
		return
	}
	defer p.untrack(client)
	server, err := net.DialTimeout("tcp", p.target, 5*time.Second)
	if err != nil {
		return
	}
	if !p.track(server) {
		return
	}
	defer p.untrack(server)
	done := make(chan struct{}, 2)
	go p.pump(server, client, &p.blackhole, nil, done)
	go p.pump(client, server, &p.blackhole, &p.dropReply, done)
	<-done
	_ = client.Close()
	_ = server.Close()
	<-done
}

// pump copies src to dst, discarding what it reads while any of the given
// switches is on, and signals done when src or dst fails.
func (p *Proxy) pump(dst, src net.Conn, drop1, drop2 *atomic.Bool, done chan<- struct{}) {
	defer func() { done <- struct{}{} }()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && !drop1.Load() && (drop2 == nil || !drop2.Load()) {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// track registers c so that Cut and Close reach it; it closes c and returns
// false when the proxy is already closed.
func (p *Proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		_ = c.Close()
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

// untrack closes c and forgets it.
func (p *Proxy) untrack(c net.Conn) {
	_ = c.Close()
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
}
