package testserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// SentinelMasterName is the name under which the sentinels of
// [StartRedisSentinel] monitor their master.
const SentinelMasterName = "lock4go"

// Sentinel timings: small, so failovers take seconds in tests.
const (
	sentinelDownAfter       = 1000 // ms without a valid reply before a node is subjectively down
	sentinelFailoverTimeout = 5000 // ms; also the pause before a failed failover is retried
)

// Sentinel is a Redis master and its replica monitored by three
// redis-sentinel processes (quorum 2) under [SentinelMasterName], all on
// free loopback ports, each in its own directory with its own
// configuration. It is safe for concurrent use.
type Sentinel struct {
	// Redis are the data nodes: Redis[0] starts as the master and Redis[1]
	// as its replica. Failovers swap their roles; [Sentinel.Master] says
	// which is the master now.
	Redis []*Server
	// Sentinels are the three redis-sentinel processes.
	Sentinels []*Server

	group *Cluster // every process, for Stop
}

// StartRedisSentinel starts a master, a replica of it and three sentinels
// (down-after-milliseconds 1000, failover-timeout 5000), and waits until
// every sentinel knows the other two and sees the replica linked to the
// master. It returns an error wrapping [ErrNotInstalled] when redis-server
// or redis-sentinel is missing.
func StartRedisSentinel() (*Sentinel, error) {
	server, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, notInstalled("redis-server")
	}
	sentinel, err := exec.LookPath("redis-sentinel")
	if err != nil {
		return nil, notInstalled("redis-sentinel")
	}
	return withPortRetry(func() (*Sentinel, error) {
		ports, err := freePorts(5)
		if err != nil {
			return nil, err
		}
		root, dirs, err := newClusterDir("redis-sentinel", 5)
		if err != nil {
			return nil, err
		}
		s := &Sentinel{group: &Cluster{dir: root, leader: noLeader}}
		fast := []string{"--repl-diskless-sync-delay", "0"}
		s.Redis = []*Server{
			newRedis(server, dirs[0], ports[0], fast),
			newRedis(server, dirs[1], ports[1], append(fast, "--replicaof", "127.0.0.1", fmt.Sprint(ports[0]))),
		}
		for i := range 3 {
			conf, err := writeSentinelConf(dirs[2+i], ports[2+i], ports[0])
			if err != nil {
				_ = os.RemoveAll(root)
				return nil, err
			}
			s.Sentinels = append(s.Sentinels, &Server{
				name: "redis-sentinel", path: sentinel, args: []string{conf},
				dir: dirs[2+i], addr: loopback(ports[2+i]), ready: redisPingFunc(loopback(ports[2+i])),
			})
		}
		s.group.Servers = append(append([]*Server{}, s.Redis...), s.Sentinels...)
		if err := s.start(); err != nil {
			_ = s.Stop()
			return nil, err
		}
		return s, nil
	})
}

// redisPingFunc returns the readiness probe of a plain Redis port.
func redisPingFunc(addr string) func(ctx context.Context) error {
	return func(ctx context.Context) error { return redisPing(ctx, addr) }
}

// writeSentinelConf writes the configuration of a sentinel on port that
// monitors the master on masterPort into dir and returns its path. Sentinel
// rewrites the file as it learns the topology, so it must be writable.
func writeSentinelConf(dir string, port, masterPort int) (string, error) {
	m := SentinelMasterName
	conf := fmt.Sprintf(`port %d
bind 127.0.0.1
dir %s
sentinel resolve-hostnames yes
sentinel announce-ip 127.0.0.1
sentinel monitor %s 127.0.0.1 %d 2
sentinel down-after-milliseconds %s %d
sentinel failover-timeout %s %d
sentinel parallel-syncs %s 1
`, port, dir, m, masterPort, m, sentinelDownAfter, m, sentinelFailoverTimeout, m)
	path := filepath.Join(dir, "sentinel.conf")
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		return "", fmt.Errorf("testserver: sentinel: %w", err)
	}
	return path, nil
}

// start starts the data nodes, waits for the replica's link, then starts
// the sentinels and waits until they are in agreement.
func (s *Sentinel) start() error {
	for _, r := range s.Redis {
		if err := r.start(); err != nil {
			return err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	if err := pollUntil(ctx, func(ctx context.Context) error { return replicaLinked(ctx, s.Redis[1].Addr()) }); err != nil {
		return fmt.Errorf("testserver: sentinel: replica not linked: %w", err)
	}
	for _, sn := range s.Sentinels {
		if err := sn.start(); err != nil {
			return err
		}
	}
	return s.AwaitHealthy(ctx)
}

// SentinelAddrs returns the addresses of the sentinels, for
// FailoverOptions.SentinelAddrs.
func (s *Sentinel) SentinelAddrs() []string {
	addrs := make([]string, len(s.Sentinels))
	for i, sn := range s.Sentinels {
		addrs[i] = sn.Addr()
	}
	return addrs
}

// Stop kills every process and removes the group's directory. Later calls
// do nothing.
func (s *Sentinel) Stop() error { return s.group.Stop() }

// Master returns the data node that a majority of the reachable sentinels
// report as the master. It returns an error wrapping [ErrNoLeader] when no
// address has a majority (during a failover, say).
func (s *Sentinel) Master(ctx context.Context) (*Server, error) {
	votes := map[string]int{}
	for _, sn := range s.Sentinels {
		pctx, cancel := context.WithTimeout(ctx, probeTimeout)
		a, err := redisStrings(redisDo(pctx, dial, sn.Addr(), "SENTINEL", "GET-MASTER-ADDR-BY-NAME", SentinelMasterName))
		cancel()
		if err == nil && len(a) == 2 {
			votes[net.JoinHostPort(a[0], a[1])]++
		}
	}
	for addr, n := range votes {
		if n*2 <= len(s.Sentinels) {
			continue
		}
		for _, r := range s.Redis {
			if r.Addr() == addr {
				return r, nil
			}
		}
		return nil, fmt.Errorf("testserver: sentinels report master %s, not a node of this group", addr)
	}
	return nil, fmt.Errorf("testserver: sentinel master: votes %v: %w", votes, ErrNoLeader)
}

// KillMaster kills the current master with SIGKILL and returns it. Its
// directory is kept: [Server.Restart] brings it back, and the sentinels then
// turn it into a replica of the new master.
func (s *Sentinel) KillMaster(ctx context.Context) (*Server, error) {
	m, err := s.Master(ctx)
	if err != nil {
		return nil, err
	}
	return m, m.Kill()
}

// Failover asks a sentinel for a failover with SENTINEL FAILOVER, which
// promotes the replica without waiting for the master to fail, and waits
// until it is done (see [Sentinel.AwaitFailover]). It returns the new
// master.
func (s *Sentinel) Failover(ctx context.Context) (*Server, error) {
	old, err := s.Master(ctx)
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, sn := range s.Sentinels {
		pctx, cancel := context.WithTimeout(ctx, probeTimeout)
		_, err := redisText(redisDo(pctx, dial, sn.Addr(), "SENTINEL", "FAILOVER", SentinelMasterName))
		cancel()
		if err == nil {
			return s.AwaitFailover(ctx, old)
		}
		errs = append(errs, fmt.Errorf("%s: %w", sn.Addr(), err))
	}
	return nil, fmt.Errorf("testserver: SENTINEL FAILOVER: %w", errors.Join(errs...))
}

// AwaitFailover waits until a majority of the sentinels report a master
// other than old and that node reports role:master, and returns it.
func (s *Sentinel) AwaitFailover(ctx context.Context, old *Server) (*Server, error) {
	var m *Server
	err := pollUntil(ctx, func(ctx context.Context) error {
		var err error
		if m, err = s.Master(ctx); err != nil {
			return err
		}
		if m == old {
			return fmt.Errorf("master is still %s", old.Addr())
		}
		return hasRole(ctx, m.Addr(), "master")
	})
	if err != nil {
		return nil, fmt.Errorf("testserver: sentinel failover from %s: %w", old.Addr(), err)
	}
	return m, nil
}

// AwaitHealthy waits until every sentinel reports the same master, knows
// the other sentinels, and sees a replica linked to the master: the state
// in which a failover can succeed.
func (s *Sentinel) AwaitHealthy(ctx context.Context) error {
	return pollUntil(ctx, func(ctx context.Context) error {
		m, err := s.Master(ctx)
		if err != nil {
			return err
		}
		for _, sn := range s.Sentinels {
			if err := s.sentinelHealthy(ctx, sn, m); err != nil {
				return fmt.Errorf("sentinel %s: %w", sn.Addr(), err)
			}
		}
		return nil
	})
}

// sentinelHealthy checks what one sentinel knows of master m.
func (s *Sentinel) sentinelHealthy(ctx context.Context, sn *Server, m *Server) error {
	pctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	f, err := redisStrings(redisDo(pctx, dial, sn.Addr(), "SENTINEL", "MASTER", SentinelMasterName))
	if err != nil {
		return err
	}
	info := pairs(f)
	if got := net.JoinHostPort(info["ip"], info["port"]); got != m.Addr() {
		return fmt.Errorf("monitors %s, want %s", got, m.Addr())
	}
	if info["flags"] != "master" || info["num-other-sentinels"] != fmt.Sprint(len(s.Sentinels)-1) {
		return fmt.Errorf("flags %q, %s other sentinels", info["flags"], info["num-other-sentinels"])
	}
	reply, err := redisDo(pctx, dial, sn.Addr(), "SENTINEL", "REPLICAS", SentinelMasterName)
	if err != nil {
		return err
	}
	replicas, _ := reply.([]any)
	for _, r := range replicas {
		f, err := redisStrings(r, nil)
		if err != nil {
			return err
		}
		ri := pairs(f)
		if ri["flags"] == "slave" && ri["master-link-status"] == "ok" {
			return nil
		}
	}
	return fmt.Errorf("no linked replica among %d", len(replicas))
}

// pairs turns a flat field/value list into a map.
func pairs(f []string) map[string]string {
	m := make(map[string]string, len(f)/2)
	for i := 0; i+1 < len(f); i += 2 {
		m[f[i]] = f[i+1]
	}
	return m
}

// replicaLinked succeeds when the replica at addr reports its link to the
// master up.
func replicaLinked(ctx context.Context, addr string) error {
	info, err := redisCommand(ctx, addr, "INFO", "replication")
	if err != nil {
		return err
	}
	if !strings.Contains(info, "master_link_status:up") {
		return errors.New("master_link_status not up")
	}
	return nil
}

// hasRole succeeds when the Redis node at addr reports role (master or
// slave) in INFO replication.
func hasRole(ctx context.Context, addr, role string) error {
	info, err := redisCommand(ctx, addr, "INFO", "replication")
	if err != nil {
		return err
	}
	if !strings.Contains(info, "role:"+role+"\r\n") {
		return fmt.Errorf("%s is not a %s", addr, role)
	}
	return nil
}

// pollUntil calls check every pollInterval, each call bounded by
// probeTimeout, until it succeeds or ctx ends; it then returns ctx's error
// with the last check's.
func pollUntil(ctx context.Context, check func(ctx context.Context) error) error {
	for {
		pctx, cancel := context.WithTimeout(ctx, probeTimeout)
		err := check(pctx)
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (last: %w)", ctx.Err(), err)
		case <-time.After(pollInterval):
		}
	}
}
