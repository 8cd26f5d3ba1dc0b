package redlock_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/redlock"
	"github.com/lock4go/lock4go/internal/exectest"
	"github.com/lock4go/lock4go/internal/testkey"
	"github.com/lock4go/lock4go/internal/testlog"
	"github.com/lock4go/lock4go/internal/testserver"
)

// addrs returns the addresses of the package's masters, or skips.
func addrs(t testing.TB) []string {
	t.Helper()
	testserver.Check(t, mastersOK)
	out := make([]string, len(masters))
	for i, s := range masters {
		out[i] = s.Addr()
	}
	return out
}

// newClient returns a client of addr, bounded by context deadlines, closed
// at the end of the test.
func newClient(t testing.TB, addr string) *goredis.Client {
	t.Helper()
	c := goredis.NewClient(&goredis.Options{
		Addr: addr, ContextTimeoutEnabled: true,
		DialTimeout: time.Second, ReadTimeout: time.Second, WriteTimeout: time.Second,
	})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// newExecutor returns a Redlock executor over new clients of addrs, closed
// at the end of the test.
func newExecutor(t testing.TB, addrs []string, o redlock.Options) *redlock.Executor {
	t.Helper()
	clients := make([]goredis.UniversalClient, len(addrs))
	for i, a := range addrs {
		clients[i] = newClient(t, a)
	}
	if o.Logger == nil {
		o.Logger = testLogger(t)
	}
	e, err := redlock.New(clients, o)
	return exectest.Closing(t, e, err)
}

// proxies returns a proxy in front of each of addrs, closed at the end of
// the test.
func proxies(t testing.TB, addrs []string) []*testserver.Proxy {
	t.Helper()
	ps := make([]*testserver.Proxy, len(addrs))
	for i, a := range addrs {
		p, err := testserver.NewProxy(a)
		if err != nil {
			t.Fatalf("NewProxy = %v", err)
		}
		t.Cleanup(func() { _ = p.Close() })
		ps[i] = p
	}
	return ps
}

// proxyAddrs returns the proxies' addresses.
func proxyAddrs(ps []*testserver.Proxy) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Addr()
	}
	return out
}

// key returns a key unique to the test.
func key(t testing.TB) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "redlock-test:" + t.Name() + ":" + hex.EncodeToString(b[:])
}

// owner returns a fresh owner value.
func owner() string { return testkey.Owner() }

// request returns a waiting-free request of key with a fresh owner.
func request(key string, ttl time.Duration) executor.Request {
	return executor.Request{Key: key, Owner: owner(), TTL: ttl, Renewed: true}
}

// ctxFor returns a context bounded by d, cancelled at the end of the test.
func ctxFor(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// holders returns, per master, the value of key ("" when absent).
func holders(t testing.TB, addrs []string, key string) []string {
	t.Helper()
	out := make([]string, len(addrs))
	for i, a := range addrs {
		v, err := newClient(t, a).Get(ctxFor(t, 5*time.Second), key).Result()
		if err != nil && err != goredis.Nil {
			t.Fatalf("GET %s on %s = %v", key, a, err)
		}
		out[i] = ownerOf(v)
	}
	return out
}

// ownerOf returns the owner in v, a lock key's value: lock4go keeps the
// owner, a NUL and the token there; other programs' values are returned
// whole.
func ownerOf(v string) string {
	if i := strings.LastIndexByte(v, 0); i >= 0 {
		return v[:i]
	}
	return v
}

// testLogger logs to t at debug level until t ends (testlog.Logger).
func testLogger(t testing.TB) *slog.Logger { return testlog.Logger(t) }
