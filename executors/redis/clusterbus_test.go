package redis_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/lock4go/lock4go/executors/redis"
	"github.com/lock4go/lock4go/internal/testserver"
)

// TestCluster_wakeBus measures what a wake costs the cluster bus: a release
// that grants the key to a waiter of another executor publishes on the
// waiter's wake channel. A classic PUBLISH is broadcast to every node; the
// sharded SPUBLISH of a Cluster client goes to the replicas of the key's
// shard only. It runs on the package's 3-node cluster, or with
// LOCK4GO_BUS_NODES=6 on a cluster of its own of 3 masters and 3 replicas
// (5 messages per wake measured there with PUBLISH, 1 with SPUBLISH), and
// fails if a wake costs more than one message per replica of the shard.
func TestCluster_wakeBus(t *testing.T) {
	c := redisCluster(t)
	if os.Getenv("LOCK4GO_BUS_NODES") == "6" {
		var err error
		c, err = testserver.StartRedisCluster(3, 1)
		testserver.Check(t, err)
		t.Cleanup(func() { _ = c.Stop() })
	}
	client := goredis.NewClusterClient(&goredis.ClusterOptions{Addrs: c.Addrs(), ContextTimeoutEnabled: true})
	t.Cleanup(func() { _ = client.Close() })
	holder := newExecutor(t, client, redis.Options{})
	waiter := newExecutor(t, newClusterClientOf(t, c), redis.Options{})
	warmWakes(t, waiter)
	key := uniq(t, "bus:")
	const n = 50
	before := busPublish(t, c)
	for range n {
		l, err := take(t, holder, key)
		if err != nil {
			t.Fatal(err)
		}
		w, stop := queueUp(t, waiter, key)
		if err := l.Release(t.Context()); err != nil {
			t.Fatal(err)
		}
		if !fired(w, 2*time.Second) {
			t.Fatal("waiter not woken")
		}
		l2, err := take(t, waiter, key)
		stop()
		if err != nil {
			t.Fatal(err)
		}
		if err := l2.Release(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	after := busPublish(t, c)
	perWake := float64(after-before) / n
	t.Logf("%d nodes: %.1f cluster bus publish messages (PUBLISH and SPUBLISH) sent per wake", len(c.Addrs()), perWake)
	if replicas := float64(len(c.Addrs())/3 - 1); perWake > replicas+0.5 {
		t.Errorf("%.1f bus messages per wake, want at most the shard's %v replicas: the wake is not sharded", perWake, replicas)
	}
}

// TestCluster_spublishAcrossSlots records that a script may not SPUBLISH
// to a channel of another slot than its keys: a sharded wake channel
// carries a tag of the key's slot.
func TestCluster_spublishAcrossSlots(t *testing.T) {
	client := newClusterClientOf(t, redisCluster(t))
	err := client.Eval(t.Context(), "return redis.call('spublish', ARGV[1], 'x')", []string{"{a}k"}, "{b}wake").Err()
	t.Logf("a script SPUBLISHing to a channel of another slot than its keys: %v", err)
	if err == nil {
		t.Error("Redis let a script SPUBLISH across slots; the sharded-wake design assumed it would not")
	}
}

// newClusterClientOf returns a client of cluster c.
func newClusterClientOf(t *testing.T, c *testserver.Cluster) *goredis.ClusterClient {
	client := goredis.NewClusterClient(&goredis.ClusterOptions{Addrs: c.Addrs(), ContextTimeoutEnabled: true})
	t.Cleanup(func() { _ = client.Close() })
	return client
}

// busPublish sums cluster_stats_messages_publish_sent and
// cluster_stats_messages_publishshard_sent over c's nodes.
func busPublish(t *testing.T, c *testserver.Cluster) int64 {
	var sum int64
	for _, a := range c.Addrs() {
		n := goredis.NewClient(&goredis.Options{Addr: a})
		info, err := n.ClusterInfo(context.Background()).Result()
		_ = n.Close()
		if err != nil {
			t.Fatal(err)
		}
		for line := range strings.Lines(info) {
			for _, stat := range []string{"cluster_stats_messages_publish_sent:", "cluster_stats_messages_publishshard_sent:"} {
				if v, ok := strings.CutPrefix(strings.TrimSpace(line), stat); ok {
					x, _ := strconv.ParseInt(v, 10, 64)
					sum += x
				}
			}
		}
	}
	return sum
}
