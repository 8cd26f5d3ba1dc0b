package main

import (
	"net"
	"strings"
	"testing"
	"time"

	"github.com/lock4go/lock4go/internal/testserver"
)

// unreachableTimeout is the --timeout of these tests, and slack what the
// tool may take beyond it: start-up, the TCP probe that explains the
// failure, and a busy machine.
const (
	unreachableTimeout = time.Second
	slack              = 3 * time.Second
)

// TestUnreachable: a closed port and a blackholed server both end every
// command with exit code 4 and a message naming the backend, within
// --timeout.
func TestUnreachable(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backendCase) {
		target, _, _ := strings.Cut(b.flags[1], ",") // Redlock's first master
		target = strings.TrimPrefix(strings.TrimPrefix(target, b.kind+"://"), "redis://")
		switch b.kind {
		case "postgres":
			target = pgSrv.Addr()
		case "mysql":
			target = mySrv.Addr()
		}
		proxy, err := testserver.NewProxy(target)
		if err != nil {
			t.Fatal(err)
		}
		defer proxy.Close()
		proxy.SetBlackhole(true)
		for _, where := range []struct{ name, addr string }{
			{"closed port", closedPort(t)},
			{"blackhole", proxy.Addr()},
		} {
			t.Run(where.name, func(t *testing.T) {
				flags := []string{"--" + b.kind, backendURL(b.kind, where.addr), "--timeout", unreachableTimeout.String()}
				for _, cmd := range [][]string{
					{"inspect", "k"}, {"watch", "k"}, {"release", "--force", "--yes", "k"}, {"bench"},
				} {
					r := runCLI(t, "", nil, append(cmd, flags...)...)
					wantCode(t, r, exitUnreachable)
					if want := b.kind + " " + shownAddr(b.kind, where.addr) + ": unreachable within 1s"; !strings.Contains(r.stderr, want) {
						t.Errorf("stderr lacks %q", want)
					}
					if r.elapsed > unreachableTimeout+slack {
						t.Errorf("%s took %v, want at most --timeout %v + %v", cmd[0], r.elapsed, unreachableTimeout, slack)
					}
				}
			})
		}
	})
}

// backendURL returns addr as the tool's flag for kind takes it.
func backendURL(kind, addr string) string {
	switch kind {
	case "redis":
		return "redis://" + addr
	case "redlock": // every master at addr
		return strings.Repeat("redis://"+addr+",", 2) + "redis://" + addr
	case "etcd":
		return "http://" + addr
	case "postgres":
		return testserver.PostgresDSN(addr)
	case "mysql":
		return "root@" + addr + "/lock4go"
	}
	return addr
}

// shownAddr returns addr as the tool shows it for kind: Redis URLs lose
// their scheme (and credentials).
func shownAddr(kind, addr string) string {
	switch kind {
	case "redis":
		return addr
	case "redlock":
		return addr + "," + addr + "," + addr
	case "postgres", "mysql":
		return addr
	}
	return backendURL(kind, addr)
}

// closedPort returns a loopback address where nothing listens.
func closedPort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}
