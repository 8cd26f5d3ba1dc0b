package testserver

import (
	"context"
	"fmt"
)

// StartZooKeeperEnsemble starts an ensemble of n ZooKeeper servers on free
// loopback ports (with the settings of [StartZooKeeper]) and waits until
// every member serves as leader or follower. With n = 1 the server runs
// standalone.
func StartZooKeeperEnsemble(n int) (*Cluster, error) {
	if n < 1 {
		return nil, fmt.Errorf("testserver: zookeeper ensemble of %d members", n)
	}
	java, classpath, err := zkCommand()
	if err != nil {
		return nil, err
	}
	return withPortRetry(func() (*Cluster, error) {
		ports, err := freePorts(3 * n)
		if err != nil {
			return nil, err
		}
		root, dirs, err := newClusterDir("zookeeper", n)
		if err != nil {
			return nil, err
		}
		members := make([]zkMember, n)
		for i := range members {
			members[i] = zkMember{id: i + 1, client: ports[3*i], peer: ports[3*i+1], election: ports[3*i+2]}
		}
		ensemble := members
		if n == 1 {
			ensemble = nil
		}
		c := &Cluster{dir: root, leader: zkLeader}
		for i, m := range members {
			s, err := newZooKeeper(java, classpath, dirs[i], m, ensemble, nil)
			if err != nil {
				_ = c.Stop()
				return nil, err
			}
			c.Servers = append(c.Servers, s)
		}
		if err := c.startMembers(); err != nil {
			return nil, err
		}
		return c, nil
	})
}

// zkLeader finds the member whose srvr reports Mode: leader (or the
// standalone server).
func zkLeader(ctx context.Context, servers []*Server) (int, error) {
	return probeLeaders(ctx, servers, func(ctx context.Context, addr string) (bool, error) {
		mode, err := zkMode(ctx, addr, nil)
		return mode == "leader" || mode == "standalone", err
	})
}
