package testserver

import (
	"net"
	"testing"
)

// TestFreePorts_belowEphemeral: the ports servers get are distinct, free,
// and outside the kernel's ephemeral range, so that no client connection
// can take one while its server is down for a restart.
func TestFreePorts_belowEphemeral(t *testing.T) {
	lo, hi := serverPortRange()
	if lo >= hi {
		t.Skipf("no room below the ephemeral range here (got [%d, %d)): ports come from the kernel", lo, hi)
	}
	ports, err := freePorts(20)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, p := range ports {
		if p < lo || p >= hi {
			t.Errorf("port %d outside [%d, %d)", p, lo, hi)
		}
		if seen[p] {
			t.Errorf("port %d twice", p)
		}
		seen[p] = true
		l, err := net.Listen("tcp", loopback(p))
		if err != nil {
			t.Errorf("port %d not free: %v", p, err)
			continue
		}
		l.Close()
	}
}
