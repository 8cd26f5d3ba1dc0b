package testserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
)

// Cluster is a group of servers forming one Redis Cluster, ZooKeeper
// ensemble or etcd cluster, each member in its own directory under the
// cluster's temporary directory. Each member can be stopped, killed, paused
// and restarted on its own. It is safe for concurrent use.
type Cluster struct {
	// Servers are the members, in the order of their ids (ZooKeeper myid 1
	// is Servers[0], etcd member m1 is Servers[0]; for Redis the masters come
	// first).
	Servers []*Server

	dir    string
	leader func(ctx context.Context, servers []*Server) (int, error)
}

// Addrs returns the client address of every member, in the order of
// [Cluster.Servers].
func (c *Cluster) Addrs() []string {
	addrs := make([]string, len(c.Servers))
	for i, s := range c.Servers {
		addrs[i] = s.Addr()
	}
	return addrs
}

// Stop kills every member, then removes the cluster's directory. The data
// goes away anyway, and a graceful stop of all members at once can stall (an
// etcd leader tries to hand leadership over to members that are leaving).
// Later calls do nothing.
func (c *Cluster) Stop() error {
	errs := make([]error, len(c.Servers))
	var wg sync.WaitGroup
	for i, s := range c.Servers {
		wg.Go(func() {
			_ = s.Kill()
			errs[i] = s.Stop()
		})
	}
	wg.Wait()
	if err := os.RemoveAll(c.dir); err != nil {
		errs = append(errs, fmt.Errorf("testserver: stop cluster: %w", err))
	}
	return errors.Join(errs...)
}

// Leader returns the index in [Cluster.Servers] of the one member that
// reports itself leader; members that do not answer within a second
// (stopped, killed, paused) are skipped. It returns an error wrapping
// [ErrNoLeader] when no member, or more than one, claims leadership (during
// an election), and [ErrNotApplicable] for a Redis Cluster.
func (c *Cluster) Leader() (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	return c.leader(ctx, c.Servers)
}

// newClusterDir creates the temporary directory of a cluster and one
// directory per member in it.
func newClusterDir(kind string, n int) (root string, dirs []string, err error) {
	root, err = os.MkdirTemp("", "lock4go-"+kind+"-cluster-*")
	if err != nil {
		return "", nil, fmt.Errorf("testserver: %s cluster: %w", kind, err)
	}
	for i := range n {
		d, err := os.MkdirTemp(root, fmt.Sprintf("n%d-", i+1))
		if err != nil {
			_ = os.RemoveAll(root)
			return "", nil, fmt.Errorf("testserver: %s cluster: %w", kind, err)
		}
		dirs = append(dirs, d)
	}
	return root, dirs, nil
}

// startMembers spawns every member at once (they need each other to form a
// quorum), then waits until each is ready. On failure the cluster is
// stopped and an error naming the failed members is returned.
func (c *Cluster) startMembers() error {
	exited := make([]<-chan struct{}, len(c.Servers))
	for i, s := range c.Servers {
		s.mu.Lock()
		err := s.spawn()
		exited[i] = s.exited
		s.mu.Unlock()
		if err != nil {
			_ = c.Stop()
			return err
		}
	}
	errs := make([]error, len(c.Servers))
	var wg sync.WaitGroup
	for i, s := range c.Servers {
		wg.Go(func() { errs[i] = s.awaitReady(exited[i]) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		_ = c.Stop()
		return err
	}
	return nil
}

// probeLeaders asks every member concurrently whether it leads and returns
// the index of the only one that does.
func probeLeaders(ctx context.Context, servers []*Server, isLeader func(ctx context.Context, addr string) (bool, error)) (int, error) {
	leads := make([]bool, len(servers))
	var wg sync.WaitGroup
	for i, s := range servers {
		wg.Go(func() {
			ok, err := isLeader(ctx, s.Addr())
			leads[i] = err == nil && ok
		})
	}
	wg.Wait()
	leader, count := -1, 0
	for i, ok := range leads {
		if ok {
			leader, count = i, count+1
		}
	}
	if count != 1 {
		return -1, fmt.Errorf("testserver: %d members claim leadership: %w", count, ErrNoLeader)
	}
	return leader, nil
}
