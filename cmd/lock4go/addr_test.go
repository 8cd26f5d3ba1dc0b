package main

import (
	"strings"
	"testing"
)

// TestInspect_hostPort: every backend flag takes host:port (ZooKeeper a
// zk:// URL too) as well as the URLs of the other tests.
func TestInspect_hostPort(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backendCase) {
		var addrs []string
		for _, u := range strings.Split(b.flags[1], ",") {
			_, a, ok := strings.Cut(u, "://")
			if !ok {
				a = u
			}
			addrs = append(addrs, a)
		}
		value := strings.Join(addrs, ",")
		if b.kind == "zookeeper" {
			value = "zk://" + value
		}
		key := uniqueKey(t)
		l := hold(t, b, key)
		r := runCLI(t, "", nil, "inspect", "--"+b.kind, value, key)
		wantCode(t, r, exitOK)
		if !strings.Contains(r.stdout, l.Owner()) {
			t.Errorf("--%s %s: the holder %s is not shown", b.kind, value, l.Owner())
		}
	})
}

// TestInspect_badAddress: a malformed address is a usage error before
// anything is printed.
func TestInspect_badAddress(t *testing.T) {
	for _, flags := range [][]string{
		{"--redis", "redis://127.0.0.1:port"},
		{"--redlock", "127.0.0.1:1,127.0.0.1:x:y,127.0.0.1:3"},
		{"--etcd", "ftp://127.0.0.1:2379"},
		{"--zookeeper", "zk://127.0.0.1:2181/chroot"},
		{"--zookeeper", "127.0.0.1:1:2"},
	} {
		r := runCLI(t, "", nil, append([]string{"inspect", "k"}, flags...)...)
		wantCode(t, r, exitUsage)
		if r.stdout != "" || !strings.Contains(r.stderr, flags[0]) {
			t.Errorf("%v: stdout %q, stderr %q; want nothing on stdout and stderr naming %s", flags, r.stdout, r.stderr, flags[0])
		}
	}
}

// TestInspect_unreachableSection: an unreachable backend is one line in
// the table, with no column header.
func TestInspect_unreachableSection(t *testing.T) {
	addr := closedPort(t)
	r := runCLI(t, "", nil, "inspect", "--redis", addr, "--timeout", "1s", "k1", "k2")
	wantCode(t, r, exitUnreachable)
	want := "redis " + addr + ": unreachable within 1s"
	if lines := strings.Split(strings.TrimSpace(r.stdout), "\n"); len(lines) != 1 || !strings.HasPrefix(lines[0], want) {
		t.Errorf("stdout %q, want one line starting %q", r.stdout, want)
	}
}
