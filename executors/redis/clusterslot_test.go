package redis_test

import (
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/redis"
	"github.com/lock4go/lock4go/internal/testserver"
	"github.com/lock4go/lock4go/internal/testwait"
)

// TestCluster_wakeFollowsSlot checks that the sharded wake subscription
// follows its slot to another master (resharding): the old master drops
// the subscription, the executor subscribes on the new one, and a release
// there wakes the waiter.
func TestCluster_wakeFollowsSlot(t *testing.T) {
	c, err := testserver.StartRedisCluster(3, 0)
	testserver.Check(t, err)
	t.Cleanup(func() { _ = c.Stop() })
	holder := newExecutor(t, newClusterClientOf(t, c), redis.Options{})
	waiter := newExecutor(t, newClusterClientOf(t, c), redis.Options{})
	key := uniq(t, "slot:")
	channel := redis.ShardWakeChannel(waiter, key)
	_, stop := waiter.WatchRelease(t.Context(), key)
	defer stop()
	from, to := slotOwner(t, c, key), ""
	for _, a := range c.Addrs() {
		if a != from {
			to = a
			break
		}
	}
	if !testwait.Until(5*time.Second, func() bool { return shardNumSub(t, from, channel) == 1 }) {
		t.Fatal("the waiter's sharded subscription is not on the slot's master")
	}
	moved := time.Now()
	moveSlot(t, c, redis.KeySlot(key), from, to)
	if !testwait.Until(10*time.Second, func() bool { return shardNumSub(t, to, channel) == 1 }) {
		t.Fatal("the subscription did not follow the slot to its new master")
	}
	t.Logf("subscribed on the slot's new master %v after the move", time.Since(moved).Round(time.Millisecond))
	wakeAfterMove(t, holder, waiter, key)
}

// wakeAfterMove checks that a release of key by holder wakes waiter and
// that its confirmation takes the key.
func wakeAfterMove(t *testing.T, holder, waiter *redis.Executor, key string) {
	t.Helper()
	var l executor.Lease
	var err error
	// The holder's client learns the new slot map at its first errors.
	if !testwait.Until(10*time.Second, func() bool { l, err = take(t, holder, key); return err == nil }) {
		t.Fatal(err)
	}
	w, stop2 := queueUp(t, waiter, key)
	defer stop2()
	if err := l.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !fired(w, 3*time.Second) {
		t.Fatal("the waiter was not woken after its slot moved or failed over")
	}
	if _, err := take(t, waiter, key); err != nil {
		t.Fatalf("the woken waiter's confirmation = %v", err)
	}
}

// slotOwner returns the address of the master of key's slot.
func slotOwner(t *testing.T, c *testserver.Cluster, key string) string {
	t.Helper()
	client := newClusterClientOf(t, c)
	node, err := client.MasterForKey(t.Context(), key)
	if err != nil {
		t.Fatal(err)
	}
	return node.Options().Addr
}

// shardNumSub returns PUBSUB SHARDNUMSUB of channel on the node at addr.
func shardNumSub(t *testing.T, addr, channel string) int64 {
	n := goredis.NewClient(&goredis.Options{Addr: addr})
	defer n.Close()
	return n.PubSubShardNumSub(t.Context(), channel).Val()[channel]
}

// moveSlot moves the empty slot from the master at from to the one at to.
func moveSlot(t *testing.T, c *testserver.Cluster, slot int, from, to string) {
	t.Helper()
	id := func(addr string) string {
		n := goredis.NewClient(&goredis.Options{Addr: addr})
		defer n.Close()
		v, err := n.Do(t.Context(), "cluster", "myid").Text()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	fromID, toID := id(from), id(to)
	do := func(addr string, args ...any) {
		n := goredis.NewClient(&goredis.Options{Addr: addr})
		defer n.Close()
		if err := n.Do(t.Context(), args...).Err(); err != nil {
			t.Fatalf("%s %v: %v", addr, args, err)
		}
	}
	do(to, "cluster", "setslot", slot, "importing", fromID)
	do(from, "cluster", "setslot", slot, "migrating", toID)
	for _, a := range c.Addrs() {
		do(a, "cluster", "setslot", slot, "node", toID)
	}
}

// TestCluster_wakeFollowsFailover checks that the sharded wake subscription
// follows its slot to the replica that takes over when the master dies.
func TestCluster_wakeFollowsFailover(t *testing.T) {
	c, err := testserver.StartRedisCluster(3, 1)
	testserver.Check(t, err)
	t.Cleanup(func() { _ = c.Stop() })
	holderClient := newClusterClientOf(t, c)
	holder := newExecutor(t, holderClient, redis.Options{})
	waiter := newExecutor(t, newClusterClientOf(t, c), redis.Options{})
	key := uniq(t, "failover:")
	channel := redis.ShardWakeChannel(waiter, key)
	_, stop := waiter.WatchRelease(t.Context(), key)
	defer stop()
	from := slotOwner(t, c, key)
	if !testwait.Until(5*time.Second, func() bool { return shardNumSub(t, from, channel) == 1 }) {
		t.Fatal("the waiter's sharded subscription is not on the slot's master")
	}
	if !testwait.Until(20*time.Second, func() bool { return replicasInSync(t, c) }) {
		t.Fatal("the replicas did not sync with their masters")
	}
	killed := time.Now()
	for _, s := range c.Servers {
		if s.Addr() == from {
			if err := s.Kill(); err != nil {
				t.Fatal(err)
			}
		}
	}
	var to string
	if !testwait.Until(20*time.Second, func() bool {
		for _, a := range c.Addrs() {
			if a != from && isMasterOf(t, a, redis.KeySlot(key)) && shardNumSub(t, a, channel) == 1 {
				to = a
				return true
			}
		}
		return false
	}) {
		for _, a := range c.Addrs() {
			if a != from {
				t.Logf("%s: master of the slot %v, SHARDNUMSUB %d", a, isMasterOf(t, a, redis.KeySlot(key)), shardNumSub(t, a, channel))
			}
		}
		t.Fatal("the subscription did not follow the slot to the promoted replica")
	}
	t.Logf("subscribed on the promoted replica %s %v after the master was killed", to, time.Since(killed).Round(time.Millisecond))
	// go-redis's cluster client reads the slot map again at most every
	// 10 s on its own; the holder's need not wait for that.
	holderClient.ReloadState(t.Context())
	wakeAfterMove(t, holder, waiter, key)
}

// isMasterOf reports whether the node at addr is a master serving slot.
func isMasterOf(t *testing.T, addr string, slot int) bool {
	n := goredis.NewClient(&goredis.Options{Addr: addr, MaxRetries: -1})
	defer n.Close()
	slots, err := n.ClusterSlots(t.Context()).Result()
	if err != nil {
		return false
	}
	me := n.Do(t.Context(), "cluster", "myid").Val()
	for _, r := range slots {
		if slot >= r.Start && slot <= r.End && len(r.Nodes) > 0 && r.Nodes[0].ID == me {
			return true
		}
	}
	return false
}

// replicasInSync reports whether every replica of c has its link to its
// master up (a replica that never synced does not take over).
func replicasInSync(t *testing.T, c *testserver.Cluster) bool {
	for _, a := range c.Addrs() {
		n := goredis.NewClient(&goredis.Options{Addr: a})
		info := n.Info(t.Context(), "replication").Val()
		_ = n.Close()
		if strings.Contains(info, "role:slave") && !strings.Contains(info, "master_link_status:up") {
			return false
		}
	}
	return true
}
