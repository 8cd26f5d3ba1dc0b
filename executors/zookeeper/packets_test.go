package zookeeper

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// TestExecutor_uncontendedPackets checks that an uncontended Acquire and
// Release costs three requests, as zk.Lock's Lock and Unlock do: the
// create (a multi whose reply says the node is alone), a read of the own
// node (its stat and a watch), the delete. The server counts them (mntr
// zk_packets_received) over 200 pairs; session pings and the monitor's
// heartbeats add a few.
func TestExecutor_uncontendedPackets(t *testing.T) {
	addr := server(t)
	conn := dial(t, testSession, addr)
	e := newExecutor(t, conn, Options{})
	key := fmt.Sprintf("packets:%d", time.Now().UnixNano())
	pair := func() {
		l, err := e.Acquire(t.Context(), req(key, true))
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Release(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	pair() // the parent exists from here on
	const pairs = 200
	perPair := func(f func()) float64 {
		before := packets(t, addr)
		for range pairs {
			f()
		}
		return float64(packets(t, addr)-before-1) / pairs // mntr itself is not a packet
	}
	got := perPair(pair)
	zl := zk.NewLock(conn, e.keyPath(key+":zk"), zk.WorldACL(zk.PermAll))
	peer := perPair(func() {
		if err := zl.Lock(); err != nil {
			t.Fatal(err)
		}
		if err := zl.Unlock(); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("packets per uncontended pair: lock4go %.2f, zk.Lock %.2f", got, peer)
	if got > 3.1 {
		t.Fatalf("%.2f packets per uncontended pair, want 3 (zk.Lock: %.2f)", got, peer)
	}
}

// packets returns the packets the ZooKeeper server at addr has received.
func packets(t *testing.T, addr string) int64 {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c, "mntr"); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(c)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "\t"); ok && k == "zk_packets_received" {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatalf("mntr of %s: no zk_packets_received (%v)", addr, sc.Err())
	return 0
}

// A lock parent whose ACL refuses writes of its data (the multi's second
// half) still grants locks: the executor falls back to plain creates.
func TestExecutor_parentRefusesWrites(t *testing.T) {
	conn := dial(t, testSession, server(t))
	acl := zk.WorldACL(zk.PermCreate | zk.PermDelete | zk.PermRead)
	e := newExecutor(t, conn, Options{BasePath: fmt.Sprintf("/noWrite%d", time.Now().UnixNano()), ACL: acl})
	for i := range 3 {
		l, err := e.Acquire(t.Context(), req("k", true))
		if err != nil {
			t.Fatalf("acquisition %d: %v", i, err)
		}
		if err := l.Release(t.Context()); err != nil {
			t.Fatalf("release %d: %v", i, err)
		}
	}
	if !e.plainCreate.Load() {
		t.Fatal("the executor still makes multis on a parent that refuses writes")
	}
}
