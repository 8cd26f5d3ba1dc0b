package testserver

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
)

// freePorts returns n distinct loopback ports that were free a moment ago.
// They are drawn from below the kernel's ephemeral range (see
// [serverPortRange]): a port from 127.0.0.1:0 is an ephemeral one, which
// the kernel also gives the client end of outgoing connections, so after a
// server is killed any client's new connection may take its port and the
// restart on that port fails with "address already in use" for as long as
// the connection lives (TestClusterFailover/etcd in CI: a killed member's
// client port held by a connection 3 s later). No connect takes a port
// below the range.
func freePorts(n int) ([]int, error) { return freePortsWith(n, 0) }

// freePortsWith is freePorts for servers that also listen on their port
// plus offset (a Redis Cluster node's bus, 10000 above): both ports are
// drawn below the ephemeral range and checked free. A bus port in the range
// was taken by a client connection's end under make test
// (TestStartRedisCluster: "Failed listening on port 37888 (cluster)").
func freePortsWith(n, offset int) ([]int, error) {
	lo, hi := serverPortRange()
	hi -= offset
	ports := make([]int, 0, n)
	taken := map[int]bool{}
	for tries := 0; len(ports) < n; tries++ {
		if tries == 1000 || lo >= hi {
			return freeEphemeralPorts(n)
		}
		p := lo + rand.IntN(hi-lo)
		if taken[p] {
			continue
		}
		l, err := net.Listen("tcp", loopback(p))
		if err != nil {
			continue // taken by someone else
		}
		defer l.Close()
		if offset > 0 {
			lb, err := net.Listen("tcp", loopback(p+offset))
			if err != nil {
				continue
			}
			defer lb.Close()
		}
		taken[p] = true
		ports = append(ports, p)
	}
	return ports, nil
}

// serverPortRange returns [lo, hi): the ports below the kernel's ephemeral
// range (net.ipv4.ip_local_port_range, 32768 by default on Linux) and
// above 20000, or an empty range when that is too small or unknown.
func serverPortRange() (lo, hi int) {
	const floor, minSpan = 20000, 2000
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 0, 0
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return 0, 0
	}
	first, err := strconv.Atoi(f[0])
	if err != nil || first-floor < minSpan {
		return 0, 0
	}
	return floor, first
}

// freeEphemeralPorts returns n distinct ports the kernel chose, for systems
// whose ephemeral range leaves no room below it.
func freeEphemeralPorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("testserver: free port: %w", err)
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// withPortRetry calls start again, up to a few times, while it fails because
// a port it chose was taken meanwhile.
func withPortRetry[T any](start func() (T, error)) (T, error) {
	var v T
	var err error
	for range 4 {
		v, err = start()
		if err == nil || !errors.Is(err, errAddrInUse) {
			break
		}
	}
	return v, err
}

// loopback returns "127.0.0.1:port".
func loopback(port int) string {
	return net.JoinHostPort("127.0.0.1", fmt.Sprint(port))
}
