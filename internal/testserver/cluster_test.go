package testserver

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// waitLeader polls c.Leader until one member leads or d passes.
func waitLeader(t *testing.T, c *Cluster, d time.Duration) int {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		i, err := c.Leader()
		if err == nil {
			return i
		}
		if time.Now().After(deadline) {
			t.Fatalf("no single leader after %v: %v", d, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestCluster_leaderFailover(t *testing.T) {
	kinds := []struct {
		name  string
		start func(n int) (*Cluster, error)
	}{
		{"zookeeper", StartZooKeeperEnsemble},
		{"etcd", StartEtcdCluster},
	}
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			t.Parallel()
			c, err := k.start(3)
			Check(t, err)
			t.Cleanup(func() { _ = c.Stop() })
			if got := len(c.Addrs()); got != 3 {
				t.Fatalf("%d addrs, want 3", got)
			}
			for _, s := range c.Servers {
				if err := serving(t, s); err != nil {
					t.Fatalf("member %s not serving: %v", s.Addr(), err)
				}
			}
			leader, err := c.Leader()
			if err != nil {
				t.Fatalf("Leader: %v", err)
			}

			// Kill the leader: the other two elect a new one; the old one
			// rejoins as a follower after Restart.
			old := c.Servers[leader]
			if err := old.Kill(); err != nil {
				t.Fatal(err)
			}
			next := waitLeader(t, c, 20*time.Second)
			if next == leader {
				t.Fatalf("killed member %d still leader", leader)
			}
			if err := old.Restart(); err != nil {
				t.Fatalf("Restart old leader: %v", err)
			}
			if err := alive(t, old); err != nil {
				t.Fatalf("old leader not serving after Restart: %v", err)
			}
			if got := waitLeader(t, c, 20*time.Second); got == leader {
				t.Logf("old leader %d leads again", got)
			}

			if err := c.Stop(); err != nil {
				t.Fatalf("Stop: %v", err)
			}
			if err := c.Stop(); err != nil {
				t.Fatalf("second Stop: %v", err)
			}
		})
	}
}

func TestStartRedisCluster(t *testing.T) {
	t.Parallel()
	c, err := StartRedisCluster(3, 1)
	Check(t, err)
	t.Cleanup(func() { _ = c.Stop() })
	if len(c.Servers) != 6 {
		t.Fatalf("%d servers, want 6", len(c.Servers))
	}
	ctx, cancel := contextWithTimeout(t, 2*time.Second)
	defer cancel()
	for i, s := range c.Servers {
		info, err := redisCommand(ctx, s.Addr(), "CLUSTER", "INFO")
		if err != nil || !strings.Contains(info, "cluster_state:ok") {
			t.Fatalf("node %d: CLUSTER INFO = %q, %v", i, info, err)
		}
		role, err := redisCommand(ctx, s.Addr(), "INFO", "replication")
		wantMaster := i < 3
		if err != nil || strings.Contains(role, "role:master") != wantMaster {
			t.Fatalf("node %d: want master %v, INFO replication = %q, %v", i, wantMaster, role, err)
		}
	}
	if _, err := c.Leader(); !errors.Is(err, ErrNotApplicable) {
		t.Fatalf("Leader = %v, want ErrNotApplicable", err)
	}
}

func TestStartRedisCluster_tooFewMasters(t *testing.T) {
	if _, err := StartRedisCluster(2, 0); err == nil {
		t.Fatal("a cluster of 2 masters started")
	}
}
