package reliability

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	goredis "github.com/redis/go-redis/v9"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/testserver"
)

// soak reports whether the long settings were asked for (make soak).
func soak() bool { return testserver.Soak() }

// pick returns short, or long under LOCK4GO_SOAK=1.
func pick[T any](short, long T) T { return testserver.Pick(short, long) }

// env is one backend under test: its server and the lease the tests use.
type env struct {
	kind string
	srv  *testserver.Server
	// addrs are the servers' addresses when there are several (Redlock's
	// masters); nil means srv's.
	addrs []string
	err   error
	// lease is how long a lock outlives its holder's silence: the
	// watchdog lease (Config.Expire) for Redis, PostgreSQL and MySQL, the granted lease TTL for
	// etcd (2s is etcd's minimum), the session timeout for ZooKeeper.
	lease time.Duration
}

func envs() []*env {
	return []*env{
		{kind: Redis, srv: redisSrv, err: redisErr, lease: time.Second},
		{kind: ZooKeeper, srv: zkSrv, err: zkErr, lease: 2 * time.Second},
		{kind: Etcd, srv: etcdSrv, err: etcdErr, lease: 2 * time.Second},
		{kind: Postgres, srv: pgSrv, err: pgErr, lease: time.Second},
		{kind: MySQL, srv: mysqlSrv, err: mysqlErr, lease: time.Second},
	}
}

// forEachBackend runs fn for every backend, the backends in parallel with
// each other (each has its own server; the tests of one backend run one
// after another, so a fault on its server disturbs no other test).
func forEachBackend(t *testing.T, fn func(t *testing.T, e *env)) {
	for _, e := range envs() {
		t.Run(e.kind, func(t *testing.T) {
			t.Parallel()
			testserver.Check(t, e.err)
			fn(t, e)
		})
	}
}

// unique returns a short random name for keys and namespaces.
func unique(prefix string) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// space is one test's namespace on a backend: keys and executor
// namespaces that no other test uses.
type space struct {
	e    *env
	name string // "rel-xxxxxxxx"
}

func newSpace(e *env) space { return space{e: e, name: unique("rel-")} }

// namespace is the executor namespace: a ZooKeeper base path or an etcd
// prefix; "" for Redis, PostgreSQL and MySQL, whose keys carry the name instead.
func (s space) namespace() string {
	switch s.e.kind {
	case ZooKeeper:
		return "/" + s.name
	case Etcd:
		return s.name + "/"
	}
	return ""
}

// key returns a lock key of this space.
func (s space) key(k string) string { return s.name + ":" + k }

// backend describes the backend reached at addrs (the server by default).
func (s space) backend(addrs ...string) Backend {
	if len(addrs) == 0 {
		addrs = s.e.addrs
	}
	if len(addrs) == 0 {
		addrs = []string{s.e.srv.Addr()}
	}
	return Backend{Kind: s.e.kind, Addrs: addrs, Session: s.e.lease, Namespace: s.namespace()}
}

// open returns a Template over a fresh executor (own client) at addrs,
// closed at the end of the test.
func (s space) open(t *testing.T, cfg lock4go.Config, addrs ...string) (*lock4go.Template, executor.Executor) {
	t.Helper()
	ex, closeFn, err := s.backend(addrs...).Open(t.Context())
	if err != nil {
		t.Fatalf("open %s: %v", s.e.kind, err)
	}
	t.Cleanup(func() {
		if err := closeFn(); err != nil {
			t.Logf("close %s: %v", s.e.kind, err)
		}
	})
	if cfg.Expire == 0 {
		cfg.Expire = s.e.lease
	}
	tpl, err := lock4go.New(cfg, ex)
	if err != nil {
		t.Fatal(err)
	}
	return tpl, ex
}

// inventory is what a backend stores for one space.
type inventory struct {
	// Entries are the Redis keys containing the space's name, the etcd
	// keys under its prefix, the znodes under its base path (lock
	// parents and lock nodes), or the PostgreSQL rows (postgresEntry) of
	// its keys, sorted.
	Entries []string
	// NoTTL are Redis keys without a TTL.
	NoTTL []string
	// LockNodes are the ZooKeeper lock nodes (children of lock parents),
	// the etcd queue entries, the Redis lock keys (not the bookkeeping
	// of redisBookkeeping), or the PostgreSQL rows that are live (a
	// writer, claim, share or queue entry that has not expired).
	LockNodes []string
	// Expired are the PostgreSQL rows whose lease, claim or queue entry
	// ended without a release (a crashed process's), which a sweep
	// removes.
	Expired []string
	// Parents are the ZooKeeper lock parents (container nodes, which the
	// server deletes some time after their last child; ZooKeeper reports
	// them with ephemeralOwner 0, like persistent nodes, so the test cannot
	// tell them apart).
	Parents []string
}

// inventory reads what the backend holds for s, through a client of its
// own, straight to the server (never through a proxy).
func (s space) inventory(t *testing.T) inventory {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	inv, err := readInventory(ctx, s.e.kind, s.e.srv.Addr(), s.name, s.namespace())
	if err != nil {
		t.Fatalf("inventory of %s: %v", s.e.kind, err)
	}
	return inv
}

// redisBookkeeping reports whether a Redis key is one of the executor's
// own, which may outlive a lock, always with a TTL: the void marker of a
// voided acquisition ("{key}:void:<owner>", "<key>##void:<owner>", kept for
// max(lease, 30s) so that the next waiter takes over the key should a late
// copy of the acquisition take it). The executor keeps no fencing counter:
// a lock's token lives in its value.
func redisBookkeeping(k string) bool {
	return strings.Contains(k, ":void:") || strings.Contains(k, "##void:")
}

// readInventory lists a space's entries on a backend at addr.
func readInventory(ctx context.Context, kind, addr, name, namespace string) (inventory, error) {
	var inv inventory
	switch kind {
	case Redis:
		c := goredis.NewClient(&goredis.Options{Addr: addr})
		defer c.Close()
		iter := c.Scan(ctx, 0, "*"+name+"*", 1000).Iterator()
		for iter.Next(ctx) {
			k := iter.Val()
			inv.Entries = append(inv.Entries, k)
			ttl, err := c.PTTL(ctx, k).Result()
			if err != nil {
				return inv, err
			}
			if ttl == -1 { // go-redis keeps PTTL's -1 (no TTL) as is
				inv.NoTTL = append(inv.NoTTL, k)
			}
			if !redisBookkeeping(k) {
				inv.LockNodes = append(inv.LockNodes, k)
			}
		}
		if err := iter.Err(); err != nil {
			return inv, err
		}
	case Etcd:
		c, err := clientv3.New(clientv3.Config{Endpoints: []string{addr}, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
		if err != nil {
			return inv, err
		}
		defer c.Close()
		resp, err := c.Get(ctx, namespace, clientv3.WithPrefix(), clientv3.WithKeysOnly())
		if err != nil {
			return inv, err
		}
		for _, kv := range resp.Kvs {
			inv.Entries = append(inv.Entries, string(kv.Key))
			inv.LockNodes = append(inv.LockNodes, string(kv.Key))
		}
	case ZooKeeper:
		conn, _, err := zk.Connect([]string{addr}, 5*time.Second, zk.WithLogger(quiet{}))
		if err != nil {
			return inv, err
		}
		defer conn.Close()
		parents, _, err := conn.Children(namespace)
		if errors.Is(err, zk.ErrNoNode) {
			return inv, nil
		}
		if err != nil {
			return inv, fmt.Errorf("children of %s: %w", namespace, err)
		}
		for _, p := range parents {
			path := namespace + "/" + p
			inv.Entries = append(inv.Entries, path)
			kids, _, err := conn.Children(path)
			if errors.Is(err, zk.ErrNoNode) {
				continue // reaped meanwhile
			}
			if err != nil {
				return inv, err
			}
			inv.Parents = append(inv.Parents, path)
			for _, k := range kids {
				inv.Entries = append(inv.Entries, path+"/"+k)
				if k != "locks" && k != "leases" {
					inv.LockNodes = append(inv.LockNodes, path+"/"+k)
					continue
				}
				// A semaphore's containers (Curator's layout): its
				// lock nodes are their children.
				sub, _, err := conn.Children(path + "/" + k)
				if errors.Is(err, zk.ErrNoNode) {
					continue
				}
				if err != nil {
					return inv, err
				}
				inv.Parents = append(inv.Parents, path+"/"+k)
				for _, n := range sub {
					inv.Entries = append(inv.Entries, path+"/"+k+"/"+n)
					inv.LockNodes = append(inv.LockNodes, path+"/"+k+"/"+n)
				}
			}
		}
	case Postgres:
		if err := readPostgres(ctx, addr, name, &inv); err != nil {
			return inv, err
		}
	case MySQL:
		if err := readMySQL(ctx, addr, name, &inv); err != nil {
			return inv, err
		}
	default:
		return inv, fmt.Errorf("%w: %q", ErrUnknownBackend, kind)
	}
	slices.Sort(inv.Entries)
	return inv, nil
}

// quiet discards go-zookeeper's log messages.
type quiet struct{}

func (quiet) Printf(string, ...any) {}

// readStep is how often a test re-reads what costs a listing: an
// inventory of the backend, or the run's logs.
const readStep = 50 * time.Millisecond

// containsKey reports whether the backend entry n (a Redis key, an etcd
// key, a znode path) belongs to lock key k, as each executor lays keys out.
func containsKey(kind, n, k string) bool {
	switch kind {
	case Redis:
		// The key itself (a lock), or its shares (read locks, permits).
		return n == k || n == "{"+k+"}:shares" || n == k+"##shares"
	case Etcd:
		return strings.Contains(n, k+"/")
	case ZooKeeper:
		return strings.Contains(n, "/"+k+"/")
	case Postgres, MySQL:
		return strings.Contains(n, "/"+k+"/") || strings.HasSuffix(n, "/"+k)
	}
	return false
}
