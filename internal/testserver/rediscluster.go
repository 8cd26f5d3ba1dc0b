package testserver

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// redisBusOffset is how far above its port a Redis Cluster node listens for
// its cluster bus.
const redisBusOffset = 10000

// StartRedisCluster starts a Redis Cluster of masters masters (at least 3)
// and replicasPerMaster replicas for each, on free loopback ports
// (--cluster-node-timeout 1000), creates it with redis-cli --cluster create
// and waits until every node reports cluster_state:ok and knows every other
// node. The masters are Servers[:masters]. [Cluster.Leader] returns
// [ErrNotApplicable].
func StartRedisCluster(masters, replicasPerMaster int) (*Cluster, error) {
	if masters < 3 || replicasPerMaster < 0 {
		return nil, fmt.Errorf("testserver: redis cluster of %d masters and %d replicas each: needs at least 3 masters", masters, replicasPerMaster)
	}
	server, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, notInstalled("redis-server")
	}
	cli, err := exec.LookPath("redis-cli")
	if err != nil {
		return nil, notInstalled("redis-cli")
	}
	n := masters * (1 + replicasPerMaster)
	return withPortRetry(func() (*Cluster, error) {
		ports, err := freePortsWith(n, redisBusOffset)
		if err != nil {
			return nil, err
		}
		root, dirs, err := newClusterDir("redis", n)
		if err != nil {
			return nil, err
		}
		c := &Cluster{dir: root, leader: noLeader}
		for i := range n {
			c.Servers = append(c.Servers, newRedis(server, dirs[i], ports[i], []string{
				"--cluster-enabled", "yes",
				"--cluster-config-file", "nodes.conf",
				"--cluster-node-timeout", "1000",
			}))
		}
		if err := c.startMembers(); err != nil {
			return nil, err
		}
		if err := c.createRedisCluster(cli, replicasPerMaster); err != nil {
			_ = c.Stop()
			return nil, err
		}
		return c, nil
	})
}

// createRedisCluster runs redis-cli --cluster create over the started nodes
// and waits until all of them agree the cluster is ok.
func (c *Cluster) createRedisCluster(cli string, replicas int) error {
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	args := append([]string{"--cluster", "create"}, c.Addrs()...)
	args = append(args, "--cluster-replicas", fmt.Sprint(replicas), "--cluster-yes")
	out, err := exec.CommandContext(ctx, cli, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("testserver: redis-cli --cluster create: %w:\n%s", err, tailLines(string(out), 15))
	}
	for {
		var notOK string
		for _, s := range c.Servers {
			if err := redisClusterOK(ctx, s.Addr(), len(c.Servers)); err != nil {
				notOK = fmt.Sprintf("%s: %v", s.Addr(), err)
				break
			}
		}
		if notOK == "" {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("testserver: redis cluster not ok after %v: %s", startTimeout, notOK)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// redisClusterOK succeeds when the node at addr reports cluster_state:ok and
// knows n nodes.
func redisClusterOK(ctx context.Context, addr string, n int) error {
	pctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	info, err := redisCommand(pctx, addr, "CLUSTER", "INFO")
	if err != nil {
		return err
	}
	if !strings.Contains(info, "cluster_state:ok") {
		return fmt.Errorf("cluster_state not ok")
	}
	if !strings.Contains(info, fmt.Sprintf("cluster_known_nodes:%d\r\n", n)) {
		return fmt.Errorf("does not know all %d nodes yet", n)
	}
	return nil
}

// noLeader is the Leader of a Redis Cluster.
func noLeader(context.Context, []*Server) (int, error) {
	return -1, fmt.Errorf("testserver: leader of a redis cluster: %w", ErrNotApplicable)
}

// tailLines returns the last n lines of s.
func tailLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
