package redis_test

import (
	"bytes"
	"crypto/tls"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/redis"
	"github.com/lock4go/lock4go/internal/exectest"
	"github.com/lock4go/lock4go/internal/testkey"
	"github.com/lock4go/lock4go/internal/testlog"
	"github.com/lock4go/lock4go/internal/testserver"
)

// server returns the package's standalone server, or skips.
func server(t testing.TB) *testserver.Server {
	t.Helper()
	testserver.Check(t, srvErr)
	return srv
}

// clientOpt tweaks the options of a test client.
type clientOpt func(*goredis.Options)

// ctxTimeouts makes go-redis bound calls by context deadlines.
func ctxTimeouts(o *goredis.Options) { o.ContextTimeoutEnabled = true }

// newClient returns a client of addr closed at the end of the test.
func newClient(t testing.TB, addr string, opts ...clientOpt) *goredis.Client {
	t.Helper()
	o := &goredis.Options{Addr: addr, DialTimeout: time.Second, ReadTimeout: time.Second, WriteTimeout: time.Second}
	for _, f := range opts {
		f(o)
	}
	c := goredis.NewClient(o)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// newExecutor returns an executor over client closed at the end of the test.
func newExecutor(t testing.TB, client goredis.UniversalClient, o redis.Options) *redis.Executor {
	t.Helper()
	if o.Logger == nil {
		o.Logger = testLogger(t)
	}
	e, err := redis.New(client, o)
	return exectest.Closing(t, e, err)
}

// testLogger logs to t at debug level until t ends (testlog.Logger).
func testLogger(t testing.TB) *slog.Logger { return testlog.Logger(t) }

// logBuffer is a concurrency-safe log sink.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// uniq returns a key unique to this test run.
func uniq(t testing.TB, prefix string) string { return testkey.Unique(t, prefix) }

// owner returns a fresh owner value.
func owner() string { return testkey.Owner() }

// req returns a request for key with a fresh owner.
func req(key string, ttl time.Duration) executor.Request {
	return executor.Request{Key: key, Owner: owner(), TTL: ttl}
}

// The ACL user of aclServer and tlsServer.
const (
	aclUser = "lock4go"
	aclPass = "lock4go-test-secret"
)

// aclArgs are redis-server arguments that create aclUser with
// ACLRules("lock4go"): a `user` line of the server's configuration.
func aclArgs() []string {
	return append([]string{"--user", aclUser, "reset", "on", ">" + aclPass}, strings.Fields(redis.ACLRules("lock4go"))...)
}

// asUser makes a client authenticate as user with password.
func asUser(user, password string) clientOpt {
	return func(o *goredis.Options) { o.Username, o.Password = user, password }
}

// withTLS makes a client connect with TLS under cfg.
func withTLS(cfg *tls.Config) clientOpt {
	return func(o *goredis.Options) { o.TLSConfig = cfg }
}
