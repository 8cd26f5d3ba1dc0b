package reliability

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/go-zookeeper/zk"
	goredis "github.com/redis/go-redis/v9"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/memory"
)

// badKeys are keys the Template must refuse with ErrInvalidKey.
var badKeys = []struct{ name, key string }{
	{"empty", ""},
	{"nul", "a\x00b"},
	{"only-nul", "\x00"},
	{"non-utf8", "a\xffb"},
	{"truncated-utf8", "\xe2\x82"},
	{"utf16-surrogate", "\xed\xa0\x80"},
	{"too-long", strings.Repeat("k", lock4go.MaxKeyLen+1)},
	{"too-long-multibyte", strings.Repeat("é", lock4go.MaxKeyLen/2+1)},
}

// oddKeys are valid keys that stress escaping and namespaces: each must
// lock and release, all of them at once (no two may collide), and none may
// write outside the executor's namespace.
var oddKeys = []string{
	"/", "//", "..", ".", "a/../b", "../x", "a", "a/b", "a/b/c", "a%2Fb", "%2E%2E", "%2E", "%",
	"{", "}", "{}", "{a}b", "a}b", " ", "\t", "a\x01b", "\x7f", "é", "😀", "\u2028", "\uffff", "\ue000",
	"zookeeper", "/zookeeper", "_c_", "-lock-", "a-lock-0000000001",
	strings.Repeat("k", lock4go.MaxKeyLen),
	strings.Repeat("k", lock4go.MaxKeyLen-1) + "j",
	strings.Repeat("é", lock4go.MaxKeyLen/2),
	strings.Repeat("/", lock4go.MaxKeyLen),
}

// TestBadInput sends bad input through the public API of the Template and
// of each executor: every call must fail with the right sentinel, without
// a panic, and nothing may be written to the backend (checked by listing
// the whole backend before and after). Then odd but valid keys must all
// lock at once, release, and leave nothing but what the executor documents
// (Redis fencing counters with a TTL, ZooKeeper container parents).
func TestBadInput(t *testing.T) {
	forEachBackend(t, func(t *testing.T, e *env) {
		s := newSpace(e)
		// Only zero-option below locks, a free key: the acquire timeout just
		// bounds a hang. It bounds every call to the backend too, and on a
		// busy machine a ZooKeeper Lock (parent, node, listing: three round
		// trips) took over 300 ms.
		tpl, ex := s.open(t, lock4go.Config{AcquireTimeout: 10 * time.Second})
		ctx := t.Context()
		before := everything(t, e)

		for _, bk := range badKeys {
			t.Run("key/"+bk.name, func(t *testing.T) {
				wantErr(t, "Lock", lockErr(tpl.Lock(ctx, bk.key)), lock4go.ErrInvalidKey)
				wantErr(t, "TryLock", lockErr(tpl.TryLock(ctx, bk.key)), lock4go.ErrInvalidKey)
				ran := false
				wantErr(t, "Do", tpl.Do(ctx, bk.key, func(context.Context) error { ran = true; return nil }), lock4go.ErrInvalidKey)
				if ran {
					t.Error("Do ran its function for an invalid key")
				}
				_, err := tpl.Inspect(ctx, bk.key)
				wantErr(t, "Inspect", err, lock4go.ErrInvalidKey)
			})
		}

		opts := []struct {
			name string
			opt  lock4go.LockOption
			want error
		}{
			{"expire-negative", lock4go.WithExpire(-time.Second), lock4go.ErrInvalidConfig},
			{"acquire-timeout-negative", lock4go.WithAcquireTimeout(-time.Second), lock4go.ErrInvalidConfig},
			{"permits-negative", lock4go.WithPermits(-1), lock4go.ErrInvalidConfig},
			{"retry-negative", lock4go.WithRetryInterval(-time.Millisecond), lock4go.ErrInvalidConfig},
			{"unknown-executor", lock4go.WithExecutor("nope"), lock4go.ErrUnknownExecutor},
			{"executor-case", lock4go.WithExecutor(strings.ToUpper(e.kind)), lock4go.ErrUnknownExecutor},
			{"executor-nul", lock4go.WithExecutor(e.kind + "\x00"), lock4go.ErrUnknownExecutor},
		}
		key := s.key("valid")
		for _, o := range opts {
			t.Run("option/"+o.name, func(t *testing.T) {
				wantErr(t, "Lock", lockErr(tpl.Lock(ctx, key, o.opt)), o.want)
				wantErr(t, "TryLock", lockErr(tpl.TryLock(ctx, key, o.opt)), o.want)
				wantErr(t, "Do", tpl.Do(ctx, key, func(context.Context) error { return nil }, o.opt), o.want)
			})
		}

		t.Run("nil", func(t *testing.T) {
			wantErr(t, "Do(nil fn)", tpl.Do(ctx, key, nil), lock4go.ErrInvalidConfig)
			wantErr(t, "Release(nil)", tpl.Release(ctx, nil), lock4go.ErrInvalidConfig)
		})

		t.Run("config", func(t *testing.T) {
			for name, cfg := range map[string]lock4go.Config{
				"expire":          {Expire: -1},
				"acquire-timeout": {AcquireTimeout: -1},
				"retry":           {RetryInterval: -1},
				"release-timeout": {ReleaseTimeout: -1},
			} {
				_, err := lock4go.New(cfg, ex)
				wantErr(t, "New/"+name, err, lock4go.ErrInvalidConfig)
			}
			_, err := lock4go.New(lock4go.Config{Primary: "nope"}, ex)
			wantErr(t, "New/primary", err, lock4go.ErrUnknownExecutor)
			_, err = lock4go.New(lock4go.Config{})
			wantErr(t, "New/none", err, lock4go.ErrInvalidConfig)
			_, err = lock4go.New(lock4go.Config{}, ex, nil)
			wantErr(t, "New/nil executor", err, lock4go.ErrInvalidConfig)
			_, err = lock4go.New(lock4go.Config{}, ex, ex)
			wantErr(t, "New/duplicate", err, lock4go.ErrInvalidConfig)
		})

		// None of the above may have written anything.
		after := everything(t, e)
		if n := added(before, after); len(n) > 0 {
			for i := range n {
				n[i] = short(n[i])
			}
			t.Errorf("bad input through the Template wrote to the backend: %q", n)
		}

		t.Run("zero-option", func(t *testing.T) {
			l, err := tpl.Lock(ctx, key, lock4go.LockOption{}) // a zero option is ignored
			if err != nil {
				t.Fatalf("Lock with a zero LockOption: %v", err)
			}
			if err := l.Release(ctx); err != nil {
				t.Fatal(err)
			}
			wantErr(t, "second Release", l.Release(ctx), lock4go.ErrLockNotHeld)
		})

		// The executor's own entry point, for callers that use it directly.
		// The executor contract promises executors a non-empty key, a
		// positive TTL and a unique owner, so only the sentinel errors the
		// executor package documents for them are required: ErrInvalidKey
		// for an empty key (Redis and ZooKeeper check it) and
		// ErrInvalidConfig for a TTL that is not positive (memory and etcd
		// check it; ZooKeeper ignores TTLs, its lease being the session).
		// An empty owner is only reported.
		t.Run("executor", func(t *testing.T) {
			reqs := []struct {
				name     string
				req      executor.Request
				want     error
				advisory bool   // log instead of fail
				exempt   string // backend that documents ignoring the field
			}{
				{"empty-key", executor.Request{Key: "", Owner: "o", TTL: e.lease}, executor.ErrInvalidKey, false, ""},
				{"ttl-zero", executor.Request{Key: s.key("ttl0"), Owner: "o", TTL: 0}, executor.ErrInvalidConfig, false, ""},
				{"ttl-negative", executor.Request{Key: s.key("ttl-"), Owner: "o", TTL: -time.Second}, executor.ErrInvalidConfig, false, ""},
				{"owner-empty", executor.Request{Key: s.key("owner"), Owner: "", TTL: e.lease}, executor.ErrInvalidConfig, true, ""},
			}
			for _, rq := range reqs {
				t.Run(rq.name, func(t *testing.T) {
					l, err := ex.Acquire(ctx, rq.req)
					if l == nil {
						wantErr(t, "Acquire", err, rq.want)
						return
					}
					_ = l.Release(context.WithoutCancel(ctx))
					msg := fmt.Sprintf("Acquire(%+v) returned a lease (token %d), want an error wrapping %q", rq.req, l.Token(), rq.want)
					switch {
					case rq.exempt == e.kind:
						t.Logf("documented: %s", msg)
					case rq.advisory:
						t.Logf("ADVISORY: %s", msg)
					default:
						t.Error(msg)
					}
				})
			}
		})

		t.Run("odd-keys", func(t *testing.T) {
			var held []*lock4go.Lock
			for _, k := range oddKeys {
				l, err := tpl.TryLock(ctx, k)
				if err != nil {
					t.Errorf("TryLock(%q) while the other odd keys are held: %v", short(k), err)
					continue
				}
				if l.Token() <= 0 {
					t.Errorf("TryLock(%q): token %d", short(k), l.Token())
				}
				if h, err := tpl.Inspect(ctx, k); err == nil && h.Owner != "" && h.Owner != l.Owner() {
					t.Errorf("Inspect(%q) owner %q, want %q", short(k), h.Owner, l.Owner())
				}
				held = append(held, l)
			}
			for _, l := range held {
				if err := l.Release(ctx); err != nil {
					t.Errorf("Release(%q): %v", short(l.Key()), err)
				}
			}
			final := everything(t, e)
			for _, n := range added(after, final) {
				if !allowedResidue(e.kind, s.namespace(), n) {
					t.Errorf("left on the backend after release: %q", short(n))
				}
			}
			inv := s.inventory(t)
			if len(inv.LockNodes) != 0 || len(inv.NoTTL) != 0 {
				t.Errorf("left in the namespace: lock entries %q, no TTL %q", inv.LockNodes, inv.NoTTL)
			}
		})
	})
}

// FuzzTemplateLock feeds arbitrary keys and executor names to the string
// entry points of a Template over the memory executor: no panic; invalid
// keys fail with ErrInvalidKey, unknown executors with ErrUnknownExecutor;
// everything else locks, inspects, releases once, and runs Do once.
func FuzzTemplateLock(f *testing.F) {
	for _, k := range badKeys {
		f.Add(k.key, "")
	}
	for _, k := range oddKeys {
		f.Add(k, "memory")
	}
	f.Add("k", "redis")
	f.Add("k", "memory\x00")
	f.Fuzz(func(t *testing.T, key, name string) {
		ctx := context.Background()
		tpl, err := lock4go.New(lock4go.Config{AcquireTimeout: 10 * time.Millisecond}, memory.New(memory.Options{}))
		if err != nil {
			t.Fatal(err)
		}
		opt := lock4go.WithExecutor(name)
		var want error
		switch {
		case !validKey(key):
			want = lock4go.ErrInvalidKey
		case name != "" && name != "memory":
			want = lock4go.ErrUnknownExecutor
		}
		l, err := tpl.TryLock(ctx, key, opt)
		ranDo := 0
		doErr := func() error {
			return tpl.Do(ctx, key, func(context.Context) error { ranDo++; return nil }, opt)
		}
		_, inspectErr := tpl.Inspect(ctx, key, opt)
		if want != nil {
			wantErr(t, "TryLock", err, want)
			wantErr(t, "Do", doErr(), want)
			wantErr(t, "Inspect", inspectErr, want)
			if ranDo != 0 || l != nil {
				t.Fatalf("invalid input %q/%q got a lock", key, name)
			}
			return
		}
		if err != nil {
			t.Fatalf("TryLock(%q, %q) = %v", key, name, err)
		}
		if inspectErr != nil {
			t.Fatalf("Inspect(%q) while held = %v", key, inspectErr)
		}
		if l.Key() != key || l.Token() <= 0 {
			t.Fatalf("lock %q token %d for key %q", l.Key(), l.Token(), key)
		}
		if err := l.Release(ctx); err != nil {
			t.Fatal(err)
		}
		wantErr(t, "second Release", l.Release(ctx), lock4go.ErrLockNotHeld)
		if err := doErr(); err != nil || ranDo != 1 {
			t.Fatalf("Do = %v, ran %d times", err, ranDo)
		}
		if tpl.HeldLocks() != 0 {
			t.Fatalf("%d locks held at the end", tpl.HeldLocks())
		}
	})
}

// validKey is the documented rule of lock4go.ErrInvalidKey.
func validKey(k string) bool {
	return k != "" && len(k) <= lock4go.MaxKeyLen && !strings.ContainsRune(k, 0) && utf8Valid(k)
}

// lockErr keeps the error of a Lock call, releasing a lock that should not
// have been granted.
func lockErr(l *lock4go.Lock, err error) error {
	if l != nil {
		_ = l.Release(context.Background())
		return fmt.Errorf("granted a lock (token %d)", l.Token())
	}
	return err
}

// wantErr fails t unless err wraps want.
func wantErr(t testing.TB, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Errorf("%s = %v, want an error wrapping %q", what, err, want)
	}
}

// short abbreviates long keys in messages.
func short(k string) string {
	if len(k) > 40 {
		return fmt.Sprintf("%s…(%d bytes)", k[:20], len(k))
	}
	return k
}

// everything lists every key or znode on the backend's server.
func everything(t *testing.T, e *env) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	var out []string
	switch e.kind {
	case Redis:
		c := goredis.NewClient(&goredis.Options{Addr: e.srv.Addr()})
		defer c.Close()
		keys, err := c.Keys(ctx, "*").Result()
		if err != nil {
			t.Fatal(err)
		}
		out = keys
	case Etcd:
		c, err := clientv3.New(clientv3.Config{Endpoints: []string{e.srv.Addr()}, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		resp, err := c.Get(ctx, "\x00", clientv3.WithFromKey(), clientv3.WithKeysOnly())
		if err != nil {
			t.Fatal(err)
		}
		for _, kv := range resp.Kvs {
			out = append(out, string(kv.Key))
		}
	case ZooKeeper:
		conn, _, err := zk.Connect([]string{e.srv.Addr()}, 5*time.Second, zk.WithLogger(quiet{}))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		var walk func(p string)
		walk = func(p string) {
			kids, _, err := conn.Children(p)
			if err != nil {
				return // deleted meanwhile
			}
			for _, k := range kids {
				c := strings.TrimSuffix(p, "/") + "/" + k
				if c == "/zookeeper" {
					continue
				}
				out = append(out, c)
				walk(c)
			}
		}
		walk("/")
	case Postgres:
		err := eachPostgresRow(ctx, e.srv.Addr(), "", func(n string, _, _ bool) { out = append(out, n) })
		if err != nil {
			t.Fatal(err)
		}
	case MySQL:
		err := eachMySQLRow(ctx, e.srv.Addr(), "", func(n string, _, _ bool) { out = append(out, n) })
		if err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(out)
	return out
}

// added returns the entries of after missing from before.
func added(before, after []string) []string {
	var out []string
	for _, n := range after {
		if _, found := slices.BinarySearch(before, n); !found {
			out = append(out, n)
		}
	}
	return out
}

// allowedResidue reports whether n may stay on the backend after every lock
// was released: Redis bookkeeping (their TTL is checked apart), the
// ZooKeeper base path and lock parents (containers, checked apart).
func allowedResidue(kind, namespace, n string) bool {
	switch kind {
	case Redis:
		return redisBookkeeping(n)
	case ZooKeeper:
		rest, ok := strings.CutPrefix(n, namespace)
		return n == namespace || ok && strings.Count(rest, "/") == 1
	case Postgres:
		return postgresResidue(n)
	case MySQL:
		return mysqlResidue(n)
	}
	return false
}

func utf8Valid(s string) bool { return utf8.ValidString(s) }
