package jobs_test

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"go.uber.org/goleak"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executors/postgres"
	"github.com/lock4go/lock4go/internal/reliability"
	"github.com/lock4go/lock4go/internal/testserver"
)

// backend is one kind of server the tests of this package run against.
type backend struct {
	kind  string
	srvs  []*testserver.Server
	err   error
	lease time.Duration // the shortest at-most-for it honours to the millisecond
}

// The servers every test of this package shares, started once.
var backends = []*backend{
	{kind: reliability.Memory},
	{kind: reliability.Redis},
	{kind: reliability.Redlock},
	{kind: reliability.Etcd, lease: 2 * time.Second},
	{kind: reliability.ZooKeeper},
	{kind: reliability.Postgres, lease: time.Second},
}

func TestMain(m *testing.M) {
	var wg sync.WaitGroup
	for _, b := range backends {
		wg.Go(b.start)
	}
	wg.Wait()
	code := m.Run()
	for _, b := range backends {
		for _, s := range b.srvs {
			_ = s.Stop()
		}
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			os.Stderr.WriteString("goleak: " + err.Error() + "\n")
			code = 1
		}
	}
	os.Exit(code)
}

// start starts b's servers.
func (b *backend) start() {
	n := 1
	var start func() (*testserver.Server, error)
	switch b.kind {
	case reliability.Memory:
		return
	case reliability.Redis:
		start = func() (*testserver.Server, error) { return testserver.StartRedis() }
	case reliability.Redlock:
		n, start = 3, func() (*testserver.Server, error) { return testserver.StartRedis() }
	case reliability.Etcd:
		start = testserver.StartEtcd
	case reliability.ZooKeeper:
		start = testserver.StartZooKeeper
	case reliability.Postgres:
		start = startPostgres
	}
	for range n {
		s, err := start()
		if err != nil {
			b.err = err
			return
		}
		b.srvs = append(b.srvs, s)
	}
}

// startPostgres starts a PostgreSQL server with the executor's schema. It
// logs, with millisecond times, every statement that took 200ms or more
// and every wait for a lock that lasted 200ms (deadlock_timeout), which a
// test's failure prints (see serverLog).
func startPostgres() (*testserver.Server, error) {
	s, err := testserver.StartPostgres("-c", "log_min_duration_statement=200", "-c", "log_lock_waits=on",
		"-c", "deadlock_timeout=200ms", "-c", "log_line_prefix=%m [%p] ", "-c", "log_timezone=UTC")
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pool, err := pgxpool.New(ctx, reliability.PostgresDSN(s.Addr()))
	if err == nil {
		err = postgres.Migrate(ctx, pool, postgres.Options{})
		pool.Close()
	}
	if err != nil {
		_ = s.Stop()
		return nil, err
	}
	return s, nil
}

// addrs returns the servers' addresses.
func (b *backend) addrs() []string {
	out := make([]string, len(b.srvs))
	for i, s := range b.srvs {
		out[i] = s.Addr()
	}
	return out
}

// template returns a Template over a fresh executor of b (a client or
// session of its own), closed at the end of the test. The memory
// executor is shared by every Template of the test, as processes share a
// server.
func (b *backend) template(t *testing.T, shared *memoryShare) *lock4go.Template {
	t.Helper()
	if b.kind == reliability.Memory {
		return shared.template(t)
	}
	ex, closeFn, err := reliability.Backend{Kind: b.kind, Addrs: b.addrs(), Session: 2 * time.Second}.Open(t.Context())
	if err != nil {
		t.Fatalf("open %s: %v", b.kind, err)
	}
	t.Cleanup(func() { _ = closeFn() })
	tpl, err := lock4go.New(lock4go.Config{Expire: 2 * time.Second}, ex)
	if err != nil {
		t.Fatal(err)
	}
	return tpl
}

// forEach runs fn for every backend, in parallel with each other.
func forEach(t *testing.T, fn func(t *testing.T, b *backend)) {
	for _, b := range backends {
		t.Run(b.kind, func(t *testing.T) {
			t.Parallel()
			testserver.Check(t, b.err)
			fn(t, b)
		})
	}
}
