package testserver

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
)

// StartEtcdCluster starts an etcd cluster of n members (named m1…mN) on
// free loopback ports and waits until every member reports healthy.
func StartEtcdCluster(n int) (*Cluster, error) {
	if n < 1 {
		return nil, fmt.Errorf("testserver: etcd cluster of %d members", n)
	}
	path, err := exec.LookPath("etcd")
	if err != nil {
		return nil, notInstalled("etcd")
	}
	return withPortRetry(func() (*Cluster, error) {
		ports, err := freePorts(2 * n)
		if err != nil {
			return nil, err
		}
		root, dirs, err := newClusterDir("etcd", n)
		if err != nil {
			return nil, err
		}
		members := make([]etcdMember, n)
		for i := range members {
			members[i] = etcdMember{name: fmt.Sprintf("m%d", i+1), client: ports[2*i], peer: ports[2*i+1]}
		}
		c := &Cluster{dir: root, leader: etcdLeader}
		for i, m := range members {
			c.Servers = append(c.Servers, newEtcd(path, dirs[i], m, members, filepath.Base(root), nil))
		}
		if err := c.startMembers(); err != nil {
			return nil, err
		}
		return c, nil
	})
}

// etcdLeader finds the member whose status names itself leader.
func etcdLeader(ctx context.Context, servers []*Server) (int, error) {
	return probeLeaders(ctx, servers, etcdIsLeader)
}
