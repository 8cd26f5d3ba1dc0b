package reliability

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/lock4go/lock4go"
)

// The backends' own command-line clients (Debian's zookeeper and
// postgresql packages; mariadb, from mariadb-client, is on the PATH).
const (
	zkCli = "/usr/share/zookeeper/bin/zkCli.sh"
	psql  = "/usr/lib/postgresql/15/bin/psql"
)

// TestDeletedBehindHolder is item 2 of the safety issue: a watchdog lock
// deleted behind its holder with the backend's own tool (redis-cli DEL on
// every master, etcdctl del, zkCli.sh deleteall, psql and mariadb DELETE) is noticed within one
// watchdog period (Expire/3) plus a second: Done closes and Err wraps
// ErrLockLost with a cause that names what happened.
func TestDeletedBehindHolder(t *testing.T) {
	forEachBackend(t, func(t *testing.T, e *env) { deletedBehindHolder(t, e) })
}

// TestRedlock_deletedBehindHolder is TestDeletedBehindHolder on a 3-master
// Redlock, the key deleted on every master.
func TestRedlock_deletedBehindHolder(t *testing.T) {
	e, _ := redlockEnv(t, 3)
	deletedBehindHolder(t, e)
}

func deletedBehindHolder(t *testing.T, e *env) {
	s := newSpace(e)
	expire := 3 * e.lease
	tpl, _ := s.open(t, lock4go.Config{Expire: expire})
	key := s.name + "-deleted"
	l, err := tpl.Lock(t.Context(), key)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release(context.WithoutCancel(t.Context()))
	deleteBehind(t, s, key)
	deleted := time.Now()
	bound := expire/3 + time.Second
	select {
	case <-l.Done():
	case <-time.After(bound + 5*time.Second):
		t.Fatalf("%s: the holder was not told within %v of the delete (Err %v)", e.kind, bound+5*time.Second, l.Err())
	}
	told := time.Since(deleted)
	if told > bound {
		t.Errorf("%s: the holder was told %v after the delete, later than Expire/3 + 1s (%v)", e.kind, told, bound)
	}
	err = l.Err()
	if !errors.Is(err, lock4go.ErrLockLost) {
		t.Fatalf("%s: Err = %v, want ErrLockLost", e.kind, err)
	}
	t.Logf("%s: told %v after the delete (bound %v): %v", e.kind, told.Round(time.Millisecond), bound, err)
}

// deleteBehind deletes key's lock with the backend's own tool, straight to
// the server(s).
func deleteBehind(t *testing.T, s space, key string) {
	t.Helper()
	var cmds [][]string
	switch s.e.kind {
	case Redis, Redlock:
		addrs := s.e.addrs
		if len(addrs) == 0 {
			addrs = []string{s.e.srv.Addr()}
		}
		for _, a := range addrs {
			host, port, _ := strings.Cut(a, ":")
			cmds = append(cmds, []string{"redis-cli", "-h", host, "-p", port, "DEL", key})
		}
	case Etcd:
		cmds = [][]string{{"etcdctl", "--endpoints", s.e.srv.Addr(), "del", "--prefix", s.namespace() + key + "/"}}
	case ZooKeeper:
		cmds = [][]string{{zkCli, "-server", s.e.srv.Addr(), "deleteall", s.namespace() + "/" + key}}
	case Postgres:
		cmds = [][]string{{psql, PostgresDSN(s.e.srv.Addr()), "-c", "DELETE FROM lock4go_locks WHERE key = '" + key + "'"}}
	case MySQL:
		host, port, _ := strings.Cut(s.e.srv.Addr(), ":")
		cmds = [][]string{{"mariadb", "--no-defaults", "-h", host, "-P", port, "-u", "root", "lock4go", "-N", "-e",
			"DELETE FROM lock4go_locks WHERE k = '" + key + "'; SELECT ROW_COUNT()"}}
	default:
		t.Fatalf("no delete tool for %s", s.e.kind)
	}
	for _, c := range cmds {
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		out, err := exec.CommandContext(ctx, c[0], c[1:]...).CombinedOutput()
		cancel()
		if err != nil || !deleted(s.e.kind, string(out)) {
			t.Fatalf("%s: %v\n%s", strings.Join(c, " "), err, out)
		}
	}
}

// deleted reports whether a tool's output says it deleted something.
func deleted(kind, out string) bool {
	switch kind {
	case Redis, Redlock:
		return strings.TrimSpace(out) == "1"
	case Etcd:
		n := 0
		_, err := fmt.Sscan(strings.TrimSpace(out), &n)
		return err == nil && n > 0
	case Postgres:
		return strings.TrimSpace(out) == "DELETE 1"
	case MySQL:
		return strings.TrimSpace(out) == "1"
	}
	return !strings.Contains(out, "Node does not exist") && !strings.Contains(out, "KeeperErrorCode")
}
