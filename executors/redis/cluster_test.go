package redis_test

import (
	"context"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/redis"
)

// newClusterClient returns a client of the package's Redis Cluster.
func newClusterClient(t *testing.T) *goredis.ClusterClient {
	t.Helper()
	c := redisCluster(t)
	client := goredis.NewClusterClient(&goredis.ClusterOptions{Addrs: c.Addrs(), ContextTimeoutEnabled: true})
	t.Cleanup(func() { _ = client.Close() })
	return client
}

// TestCluster_keys runs every operation on a Cluster client over keys of
// every kind: plain, with a hash tag, with braces but no tag. A script that
// touched two slots would fail with CROSSSLOT.
func TestCluster_keys(t *testing.T) {
	client := newClusterClient(t)
	e := newExecutor(t, client, redis.Options{})
	other := newExecutor(t, newClusterClient(t), redis.Options{})
	warmWakes(t, other)
	suffix := uniq(t, "")
	keys := []string{
		"lock4j:order#42:" + suffix,
		"order:{42}:" + suffix,
		"{user1000}.following:" + suffix,
		"a}b:" + suffix,
		"{}x:" + suffix,
		"x{:" + suffix,
		"ключ:" + suffix,
	}
	items := clusterLeases(t, e, keys)
	// One pipeline per node, spread over every master.
	for i, err := range e.RenewBatch(t.Context(), items) {
		if err != nil {
			t.Fatalf("RenewBatch: %q: %v", keys[i], err)
		}
	}
	// Releases wake waiters, whatever node holds the key and whatever node
	// the waiter's pub/sub connection is on.
	for i, k := range keys {
		clusterHandOff(t, e, other, k, items[i].Lease)
	}
}

// clusterLeases takes each of keys through e, renews and inspects it, and
// returns the leases to renew for a minute.
func clusterLeases(t *testing.T, e *redis.Executor, keys []string) []executor.RenewItem {
	t.Helper()
	var items []executor.RenewItem
	for _, k := range keys {
		l, err := e.Acquire(t.Context(), req(k, 10*time.Second))
		if err != nil {
			t.Fatalf("Acquire(%q) = %v", k, err)
		}
		t.Cleanup(func() { _ = l.Release(context.WithoutCancel(t.Context())) })
		items = append(items, executor.RenewItem{Lease: l, TTL: time.Minute})
		if err := l.Renew(t.Context(), time.Minute); err != nil {
			t.Fatalf("Renew(%q) = %v", k, err)
		}
		h, err := e.Inspect(t.Context(), k)
		if err != nil {
			t.Fatalf("Inspect(%q) = %v", k, err)
		}
		if h.Token != l.Token() || h.Waiters != 0 {
			t.Fatalf("Inspect(%q) = %+v, want token %d and Waiters 0", k, h, l.Token())
		}
	}
	return items
}

// clusterHandOff releases held, e's lease of k, while other waits: other
// is woken and takes k with a larger token. Then a void of other's touches
// k's slot only and voids its owner there: its late write is taken over by
// e.
func clusterHandOff(t *testing.T, e, other *redis.Executor, k string, held executor.Lease) {
	t.Helper()
	w, stop := queueUp(t, other, k)
	if err := held.Release(t.Context()); err != nil {
		t.Fatalf("Release(%q) = %v", k, err)
	}
	if !fired(w, 2*time.Second) {
		t.Fatalf("waiter of %q not woken", k)
	}
	l, err := take(t, other, k)
	stop()
	if err != nil {
		t.Fatalf("Acquire(%q) after release = %v", k, err)
	}
	if l.Token() <= held.Token() {
		t.Fatalf("token of %q went from %d to %d", k, held.Token(), l.Token())
	}
	_ = l.Release(t.Context())
	r := req(k, time.Minute)
	if !redis.Void(other, k, r.Owner, time.Minute) {
		t.Fatalf("void of %q failed", k)
	}
	if _, err := other.Acquire(t.Context(), r); err != nil {
		t.Fatalf("Acquire(%q) by a voided owner = %v", k, err)
	}
	takeOverVoided(t, e, k)
}
