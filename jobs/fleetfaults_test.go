package jobs_test

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// lease is the fault tests' crash net: a long job's lease with
// KeepAlive (etcd's shortest TTL; ZooKeeper's session timeout, which
// startFleet's backends use).
const lease = 2 * time.Second

// longFleet starts two instances running a job that lasts until its lock
// is lost, and returns them with the first start.
func longFleet(t *testing.T, b *backend) ([]*instance, record) {
	fence := filepath.Join(t.TempDir(), "fence")
	ins := startFleet(t, b, []time.Duration{0, 0}, "-mode", "long", "-keepalive",
		"-atmost", lease.String(), "-atleast", "0s", "-fence", fence)
	first := awaitAny(t, ins, 10*time.Second, "a start", func(r record) bool { return r.Ev == "start" })
	return ins, first
}

// TestFleet_killedHolder: the instance running a long job is killed -9;
// another instance runs the job after the lease, not before, and within a
// tick and a second of it.
func TestFleet_killedHolder(t *testing.T) {
	fleetBackends(t, func(t *testing.T, b *backend) {
		ins, first := longFleet(t, b)
		holder := ins[first.proc]
		killed := time.Now()
		_ = holder.cmd.Process.Kill()
		next := awaitAny(t, ins, lease+5*time.Second, "a start after the kill", func(r record) bool {
			return r.Ev == "start" && r.Token > first.Token
		})
		gap := time.Unix(0, next.Start).Sub(killed)
		// The last renewal or heartbeat was at most a third of the lease
		// before the kill.
		if gap < 2*lease/3-100*time.Millisecond {
			t.Fatalf("the job ran again %v after its holder was killed, before its lease %v could end", gap, lease)
		}
		if gap > lease+3*time.Second {
			t.Fatalf("the job ran again %v after its holder was killed, lease %v", gap, lease)
		}
		t.Logf("ran again %v after the kill (lease %v)", gap, lease)
	})
}

// TestFleet_pausedHolder: the instance running a long job is paused
// (SIGSTOP) past its lease; another instance runs the job; the paused one,
// resumed, is told its lock is lost, makes no accepted write after that,
// and its late write with the old token is rejected once the next holder
// wrote. (The paused process may hold the fence's flock when it stops, as
// a stalled transaction holds a row lock: the next holder's first write
// then waits for the resume.)
func TestFleet_pausedHolder(t *testing.T) {
	fleetBackends(t, func(t *testing.T, b *backend) {
		ins, first := longFleet(t, b)
		holder := ins[first.proc]
		_ = holder.cmd.Process.Signal(syscall.SIGSTOP)
		awaitAny(t, ins, lease+5*time.Second, "a start while the holder is paused", func(r record) bool {
			return r.Ev == "start" && r.Token > first.Token
		})
		_ = holder.cmd.Process.Signal(syscall.SIGCONT)
		told := holder.await(t, 10*time.Second, "the paused holder told", func(r record) bool { return r.Ev == "told" && r.Token == first.Token })
		late := holder.await(t, 15*time.Second, "the paused holder's late write", func(r record) bool { return r.Late })
		if late.OK {
			t.Fatal("the fence accepted the paused holder's late write")
		}
		for _, r := range holder.records() {
			if r.Ev == "write" && r.Token == first.Token && r.OK && r.At > told.At {
				t.Fatalf("the paused holder's write at %v was accepted after it was told at %v",
					time.Unix(0, r.At), time.Unix(0, told.At))
			}
		}
	})
}
