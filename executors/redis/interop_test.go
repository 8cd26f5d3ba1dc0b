package redis_test

import (
	"errors"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/redis"
	"github.com/lock4go/lock4go/internal/testwait"
)

// lock4jUnlock is the release script of Lock4j's RedisTemplateLockExecutor.
var lock4jUnlock = goredis.NewScript(`if redis.call('get',KEYS[1]) == ARGV[1] then return tostring(redis.call('del', KEYS[1])==1) else return 'false' end`)

// TestInterop_lock4j plays Lock4j's side with plain commands: SET key value
// NX PX to lock, its compare-and-delete script to unlock.
func TestInterop_lock4j(t *testing.T) {
	s := server(t)
	c := newClient(t, s.Addr())
	e := newExecutor(t, newClient(t, s.Addr()), redis.Options{})
	key := "lock4j:order#" + uniq(t, "")

	// Lock4j holds the key: lock4go is excluded.
	if !c.SetNX(t.Context(), key, "java-owner", 30*time.Second).Val() {
		t.Fatal("plain SET NX failed on a free key")
	}
	if _, err := e.Acquire(t.Context(), req(key, time.Minute)); !errors.Is(err, executor.ErrNotAcquired) {
		t.Fatalf("Acquire while Lock4j holds the key = %v, want ErrNotAcquired", err)
	}
	if got := lock4jUnlock.Run(t.Context(), c, []string{key}, "java-owner").Val(); got != "true" {
		t.Fatalf("Lock4j unlock = %v", got)
	}

	// lock4go holds the key: Lock4j is excluded, and cannot unlock it.
	r := req(key, time.Minute)
	l, err := e.Acquire(t.Context(), r)
	if err != nil {
		t.Fatal(err)
	}
	if c.SetNX(t.Context(), key, "java-owner", 30*time.Second).Val() {
		t.Fatal("plain SET NX succeeded while lock4go holds the key")
	}
	if got := lock4jUnlock.Run(t.Context(), c, []string{key}, "java-owner").Val(); got != "false" {
		t.Fatalf("Lock4j unlock of lock4go's lock = %v, want false", got)
	}
	// The key is a plain string ("<owner>\x00<token>"), so Lock4j's
	// compare-and-delete works on lock4go's layout with the stored value.
	stored := c.Get(t.Context(), key).Val()
	if base, tok, ok := redis.ParseValue(stored); !ok || base != r.Owner || tok != l.Token() {
		t.Fatalf("stored value %q, want the owner %q and the token %d", stored, r.Owner, l.Token())
	}
	if got := lock4jUnlock.Run(t.Context(), c, []string{key}, stored).Val(); got != "true" {
		t.Fatalf("Lock4j unlock with the stored value = %v, want true", got)
	}
	if err := l.Release(t.Context()); !errors.Is(err, executor.ErrLockNotHeld) {
		t.Fatalf("Release after Lock4j deleted the key = %v, want ErrLockNotHeld", err)
	}
}

// TestInterop_neverTouchesOthers checks that a stale lease neither deletes
// nor extends a lock now held by a plain SET of another owner.
func TestInterop_neverTouchesOthers(t *testing.T) {
	s := server(t)
	c := newClient(t, s.Addr())
	e := newExecutor(t, newClient(t, s.Addr()), redis.Options{})
	key := uniq(t, "stale:")
	l, err := e.Acquire(t.Context(), req(key, 100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	if !testwait.Until(2*time.Second, func() bool { return c.SetNX(t.Context(), key, "other", 5*time.Second).Val() }) {
		t.Fatal("key never expired")
	}
	if err := l.Renew(t.Context(), time.Hour); !errors.Is(err, executor.ErrLockNotHeld) {
		t.Fatalf("stale Renew = %v, want ErrLockNotHeld", err)
	}
	if err := l.Release(t.Context()); !errors.Is(err, executor.ErrLockNotHeld) {
		t.Fatalf("stale Release = %v, want ErrLockNotHeld", err)
	}
	errs := e.RenewBatch(t.Context(), []executor.RenewItem{{Lease: l, TTL: time.Hour}})
	if !errors.Is(errs[0], executor.ErrLockNotHeld) {
		t.Fatalf("stale RenewBatch = %v, want ErrLockNotHeld", errs[0])
	}
	if got := c.Get(t.Context(), key).Val(); got != "other" {
		t.Fatalf("GET key = %q, want the other owner's value", got)
	}
	if ttl := c.PTTL(t.Context(), key).Val(); ttl > 5*time.Second {
		t.Fatalf("the other owner's TTL became %v", ttl)
	}
}
