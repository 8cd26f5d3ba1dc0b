package testserver

import (
	"bufio"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"
)

// proxiedRedis starts a Redis server and a proxy in front of it.
func proxiedRedis(t *testing.T) (*Server, *Proxy) {
	t.Helper()
	s, err := StartRedis()
	Check(t, err)
	t.Cleanup(func() { _ = s.Stop() })
	p, err := NewProxy(s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return s, p
}

// ping sends an inline PING on conn and waits up to d for +PONG.
func ping(conn net.Conn, r *bufio.Reader, d time.Duration) error {
	_ = conn.SetDeadline(time.Now().Add(d))
	if _, err := io.WriteString(conn, "PING\r\n"); err != nil {
		return err
	}
	line, err := r.ReadString('\n')
	if err != nil {
		return err
	}
	if line != "+PONG\r\n" {
		return errors.New("unexpected reply " + line)
	}
	return nil
}

// dialProxy opens a client connection through p.
func dialProxy(t *testing.T, p *Proxy) (net.Conn, *bufio.Reader) {
	t.Helper()
	conn, err := net.DialTimeout("tcp", p.Addr(), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return conn, bufio.NewReader(conn)
}

func TestProxy_forwards(t *testing.T) {
	t.Parallel()
	_, p := proxiedRedis(t)
	conn, r := dialProxy(t, p)
	for range 3 {
		if err := ping(conn, r, time.Second); err != nil {
			t.Fatal(err)
		}
	}
}

func TestProxy_Cut(t *testing.T) {
	t.Parallel()
	_, p := proxiedRedis(t)
	conn, r := dialProxy(t, p)
	if err := ping(conn, r, time.Second); err != nil {
		t.Fatal(err)
	}
	p.Cut()
	_ = conn.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := r.ReadByte(); !errors.Is(err, io.EOF) && !isConnReset(err) {
		t.Fatalf("read after Cut = %v, want EOF or reset", err)
	}
	conn2, r2 := dialProxy(t, p)
	if err := ping(conn2, r2, time.Second); err != nil {
		t.Fatalf("new connection after Cut: %v", err)
	}
}

func TestProxy_SetBlackhole(t *testing.T) {
	t.Parallel()
	_, p := proxiedRedis(t)
	conn, r := dialProxy(t, p)
	if err := ping(conn, r, time.Second); err != nil {
		t.Fatal(err)
	}
	p.SetBlackhole(true)
	if err := ping(conn, r, 200*time.Millisecond); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("PING through blackhole = %v, want a timeout", err)
	}
	conn2, r2 := dialProxy(t, p)
	if err := ping(conn2, r2, 200*time.Millisecond); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("PING on a new connection through blackhole = %v, want a timeout", err)
	}
	p.SetBlackhole(false)
	conn3, r3 := dialProxy(t, p)
	if err := ping(conn3, r3, time.Second); err != nil {
		t.Fatalf("PING after blackhole off: %v", err)
	}
}

func TestProxy_SetDropReplies(t *testing.T) {
	t.Parallel()
	s, p := proxiedRedis(t)
	conn, r := dialProxy(t, p)
	p.SetDropReplies(true)
	_ = conn.SetDeadline(time.Now().Add(200 * time.Millisecond))
	if _, err := io.WriteString(conn, "SET dropped yes\r\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.ReadByte(); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("reply with drop on = %v, want a timeout", err)
	}
	ctx, cancel := contextWithTimeout(t, time.Second)
	defer cancel()
	if v, err := redisCommand(ctx, s.Addr(), "GET", "dropped"); err != nil || v != "yes" {
		t.Fatalf("GET dropped = %q, %v; the request must have reached the server", v, err)
	}
	p.SetDropReplies(false)
	conn2, r2 := dialProxy(t, p)
	if err := ping(conn2, r2, time.Second); err != nil {
		t.Fatalf("PING after drop off: %v", err)
	}
}

func TestProxy_Close(t *testing.T) {
	t.Parallel()
	_, p := proxiedRedis(t)
	conn, r := dialProxy(t, p)
	if err := ping(conn, r, time.Second); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := p.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	_ = conn.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := r.ReadByte(); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read after Close = %v, want the connection closed", err)
	}
	if c, err := net.DialTimeout("tcp", p.Addr(), time.Second); err == nil {
		_ = c.Close()
		t.Fatal("proxy still accepts after Close")
	}
}

// isConnReset reports whether err is a connection reset.
func isConnReset(err error) bool {
	return err != nil && strings.Contains(err.Error(), "connection reset")
}
