package reliability

import (
	"context"
	"fmt"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/lock4go/lock4go/internal/testserver"
	"github.com/lock4go/lock4go/internal/testwait"
)

// TestClusterFailover is scenario 6: N=3 lockcheck processes × M=4
// goroutines compete for one key on a 3-node etcd cluster, a 3-node
// ZooKeeper ensemble and a Redis Cluster of 3 masters with one replica
// each; meanwhile the etcd or ZooKeeper leader, or the Redis master that
// owns the key's slot, is killed (SIGKILL) and restarted a few seconds
// later. Holders may lose their locks, but must be told; for etcd and
// ZooKeeper no two believed-held intervals may overlap and no update may
// be lost. Redis replicates asynchronously: a lock granted by the master
// just before it died may be missing on the replica that takes over, so
// a second holder can be granted it. The Redis subtest reports such
// overlaps and lost updates as the documented caveat instead of failing.
func TestClusterFailover(t *testing.T) {
	kinds := []struct {
		kind   string
		start  func() (*testserver.Cluster, error)
		lease  time.Duration
		strict bool
	}{
		{Etcd, func() (*testserver.Cluster, error) { return testserver.StartEtcdCluster(3) }, 2 * time.Second, true},
		{ZooKeeper, func() (*testserver.Cluster, error) { return testserver.StartZooKeeperEnsemble(3) }, 2 * time.Second, true},
		{Redis, func() (*testserver.Cluster, error) { return testserver.StartRedisCluster(3, 1) }, 2 * time.Second, false},
	}
	for _, k := range kinds {
		t.Run(k.kind, func(t *testing.T) {
			t.Parallel()
			c, err := k.start()
			testserver.Check(t, err)
			t.Cleanup(func() { _ = c.Stop() })
			for i := range pick(1, 3) {
				t.Run(fmt.Sprint("kill-", i), func(t *testing.T) { clusterFailover(t, k.kind, c, k.lease, k.strict) })
			}
		})
	}
}

func clusterFailover(t *testing.T, kind string, c *testserver.Cluster, L time.Duration, strict bool) {
	name := unique("rel-")
	b := Backend{Kind: kind, Addrs: c.Addrs(), Session: L, Cluster: kind == Redis}
	switch kind {
	case ZooKeeper:
		b.Namespace = "/" + name
	case Etcd:
		b.Namespace = name + "/"
	}
	key := name + ":cluster"
	r := newRun(t, b, key, L)
	if kind == Redis {
		r.common = append(r.common, "--cluster")
	}
	for i := range 3 {
		r.start(t, fmt.Sprint("p", i), "--duration", "3m", "--goroutines", "4", "--hold", "10ms",
			"--acquire-timeout", (2 * L).String())
	}
	r.acquiredBy(t, "p0", time.Time{}, 30*time.Second)
	victim, err := clusterVictim(t.Context(), kind, c, key)
	if err != nil {
		t.Fatal(err)
	}
	// A holder in the middle of a long hold when the member dies.
	started := time.Now()
	r.start(t, "long", "--duration", "3m", "--goroutines", "1", "--acquisitions", "1", "--hold", (2 * L).String(),
		"--acquire-timeout", "30s")
	acq := r.acquiredBy(t, "long", started, 30*time.Second)
	time.Sleep(time.Until(fromNS(acq.Start).Add(50 * time.Millisecond)))
	killedAt := time.Now()
	if err := c.Servers[victim].Kill(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Second)
	restartedAt := time.Now()
	if err := c.Servers[victim].Restart(); err != nil {
		t.Fatalf("restart member %d: %v", victim, err)
	}
	recovered, reps := r.recoverAndStop(t, restartedAt, 30*time.Second, 10)
	a, err := Analyse(r.dir, AnalyseOptions{AllowOverlap: !strict, AllowStale: !strict, AllowRegression: !strict})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range a.Violations {
		t.Errorf("violation: %s", v)
	}
	if !strict && (a.OverlapCount > 0 || a.StaleRejected > 0 || a.TokenRegressions > 0) {
		t.Logf("CAVEAT (Redis asynchronous replication): after the master's failover %d overlapping holds, %d stale tokens rejected, %d token regressions",
			a.OverlapCount, a.StaleRejected, a.TokenRegressions)
	}
	if !recovered {
		t.Errorf("fewer than 10 acquisitions within 30s after member %d restarted", victim)
	}
	var backendErrs int64
	for _, rep := range reps {
		backendErrs += rep.BackendErrors
	}
	// How long the key was unavailable: the first acquisition by anyone
	// after the long holder's hold began.
	acqs, done, _ := ReadLogs(r.dir)
	gap := time.Duration(-1)
	for _, ev := range acqs {
		if ev.ID != "long" && ev.Start > acq.Start {
			gap = fromNS(ev.Start).Sub(killedAt)
			break
		}
	}
	var longIv Interval
	for _, iv := range done {
		if iv.ID == "long" {
			longIv = iv
		}
	}
	t.Logf("%s: killed member %d (%s) 50ms into a %v hold; that holder: lost %v, told %v after the kill (%s); next acquisition %v after the kill; lost-lock signals after the kill: %s; %s; backend_errors=%d",
		kind, victim, c.Servers[victim].Addr(), 2*L, longIv.LostAt != 0, fromNS(longIv.LostAt).Sub(killedAt).Round(time.Millisecond),
		longIv.LostErr, gap.Round(time.Millisecond), latencies(a.LostLatencies(killedAt)), a.Summary(), backendErrs)
}

// clusterVictim picks the member to kill: the etcd or ZooKeeper leader, or
// the Redis master that serves key's slot.
func clusterVictim(ctx context.Context, kind string, c *testserver.Cluster, key string) (int, error) {
	if kind != Redis {
		var i int
		var err error
		ok := testwait.Until(20*time.Second, func() bool { i, err = c.Leader(); return err == nil })
		if !ok {
			return 0, fmt.Errorf("no leader: %w", err)
		}
		return i, nil
	}
	cc := goredis.NewClusterClient(&goredis.ClusterOptions{Addrs: c.Addrs()})
	defer cc.Close()
	m, err := cc.MasterForKey(ctx, key)
	if err != nil {
		return 0, err
	}
	addr := m.Options().Addr
	for i, s := range c.Servers {
		if s.Addr() == addr {
			return i, nil
		}
	}
	return 0, fmt.Errorf("master %s of %q is not a member", addr, key)
}
