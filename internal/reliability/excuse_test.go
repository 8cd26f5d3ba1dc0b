package reliability

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/timerprobe"
)

// localEndCauses are the reasons the Template gives a loss at the lease's
// local end (loss.go): a fixed lease that ran out, a watchdog lease whose
// renewals did not succeed before it (a renewal past its timeout, or still
// unanswered), a lease the backend renews that it did not confirm in time;
// and ZooKeeper's own rule (Options.DisconnectGrace, zero): a connection
// that went without its session, its heartbeats unanswered for two thirds
// of the session timeout. The local end does its job there: the lock is
// given up because nothing proved it held.
var localEndCauses = []string{
	"fixed lease expired",
	"lease ran out by the local clock",
	"zookeeper: connection without its session",
}

// lossExcuse is how a run without any fault judges a lost-lock signal.
type lossExcuse struct {
	iv       Interval
	localEnd bool          // the cause is the local end
	stall    time.Duration // how long the hold had run past its nominal length when the lock was lost
	late     time.Duration // the process's largest timer delay within the lease before the loss
	server   time.Duration // the server's slowest answer to the test's probe within the lease before the loss (0: no probe)
	answer   time.Duration // how much of the lease the granting attempt's answer took (0: not told)
	need     time.Duration // the stall that excuses a loss at the local end
}

// excused reports whether the loss is the machine's doing, by what the
// holder measured.
func (x lossExcuse) excused() bool {
	return x.localEnd && max(x.stall, x.late, x.server, x.answer) >= x.need
}

func (x lossExcuse) String() string {
	since := func(at int64) string {
		if at == 0 {
			return "-"
		}
		return "+" + fromNS(at).Sub(fromNS(x.iv.Start)).Round(time.Millisecond).String()
	}
	return fmt.Sprintf("%s g%d token %d lost at %s (read %s, last held %s, end %s; %s): the hold had run %v past its length, its process's timers up to %v late (timerprobe), the server's answers up to %v slow within the lease before and the granting attempt's answer %v; any of %v excuses a loss at the local end",
		x.iv.ID, x.iv.G, x.iv.Token, since(x.iv.LostAt), since(x.iv.ReadAt), since(x.iv.LastHeld), since(x.iv.End), x.iv.LostErr,
		x.stall.Round(time.Millisecond), x.late.Round(time.Millisecond), x.server.Round(time.Millisecond), x.answer.Round(time.Millisecond), x.need)
}

// judgeLosses judges the lost-lock signals of a run without any fault,
// whose holders held for hold with leases of lease, with judgeLoss: it
// logs every loss, fails t for each one not excused and returns their
// number.
func judgeLosses(t *testing.T, a Analysis, reps []Report, hold, lease time.Duration) int {
	t.Helper()
	failed := 0
	for _, iv := range a.Lost {
		if x := judgeLoss(iv, reps, hold, lease, nil); !x.excused() {
			failed++
			t.Errorf("lost-lock signal without any fault: %v", x)
		} else {
			t.Logf("excused loss: %v", x)
		}
	}
	return failed
}

// judgeLoss judges the loss of iv, a hold of nominal length hold with a
// lease of lease that no fault touched; server are the slow answers of
// the server to the test's probe (timerprobe.StartCalls), nil for none. A holder observes a loss only
// while it holds, so a loss at the lease's local end means the hold was
// still running then: it is excused when the machine stalled the holder by
// at least a third of the lease (a renewal interval), as the holder
// measured it: its hold had run that long past its length (its writes
// blocked on a busy disk, which the timer probe does not see), or its
// process's timers ran that late within the lease before the loss (the
// process descheduled: the reply of its acquisition, which the lease
// counts from when it was sent, or its renewals, waited that long), or the
// server took that long to answer the test's probe (the server starved:
// the same replies waited as long while the holder's timers were on
// time), or the answer of the attempt that granted the lock took that
// much of the lease (the lease the holder had left when its hold began,
// against the whole: the attempt's own reply, queued behind others on a
// starved server, waited that long). Any
// other loss, and a loss at the local end of a holder the machine did not
// stall, is a failure.
func judgeLoss(iv Interval, reps []Report, hold, lease time.Duration, server []timerprobe.Delay) lossExcuse {
	x := lossExcuse{iv: iv, need: lease / 3}
	for _, c := range localEndCauses {
		x.localEnd = x.localEnd || strings.Contains(iv.LostErr, c)
	}
	x.stall = fromNS(iv.LostAt).Sub(fromNS(iv.Start)) - hold
	x.late = reportOf(reps, iv.ID).MaxTimerDelay(iv.LostAt-int64(lease), iv.LostAt)
	x.server = timerprobe.MaxOver(server, iv.LostAt-int64(lease), iv.LostAt)
	if iv.LeaseLeft > 0 {
		x.answer = max(lease-executor.SafetyMargin(lease)-time.Duration(iv.LeaseLeft), 0)
	}
	return x
}

// startServerProbe measures how long the server of tpl takes to answer a
// write: a TryLock and Release of a key of its own (s.key("probe")), every
// 10ms (timerprobe.StartCalls), until Stop. A read would not do: a starved
// disk holds a statement's row locks until its commit is flushed (on
// PostgreSQL under make test-under-load a reader's acquisition took 700 ms
// while reads of the key answered within 73 ms), and the lease counts from
// when the statement was sent.
func startServerProbe(s space, tpl *lock4go.Template) *timerprobe.Probe {
	key := s.key("probe")
	return timerprobe.StartCalls(func(ctx context.Context) error {
		l, err := tpl.TryLock(ctx, key)
		if err != nil {
			return err
		}
		return l.Release(ctx)
	})
}

// TestJudgeLoss_slowGrant checks, on the figures of a run under make
// test-under-load (TestStalledGrantee/postgres: a reader lost its 1s lease
// 301ms into its hold, the server's probe answers up to 292ms slow), that a
// loss at the local end is excused when the granting attempt's answer took
// a third of the lease, and only then.
func TestJudgeLoss_slowGrant(t *testing.T) {
	const lease = time.Second
	start := time.Date(2026, 11, 29, 20, 38, 0, 0, time.UTC)
	full := lease - executor.SafetyMargin(lease)
	iv := Interval{ID: "reader2", Token: 2562, Start: ns(start), End: ns(start.Add(301 * time.Millisecond)),
		LostAt:  ns(start.Add(301 * time.Millisecond)),
		LostErr: `lock4go: lock lost: "k": lease ran out by the local clock before a renewal succeeded`}
	server := []timerprobe.Delay{{Due: ns(start.Add(100 * time.Millisecond)), Delay: 292 * time.Millisecond}}
	for _, c := range []struct {
		left time.Duration
		want bool
	}{
		{0, false},                           // not told
		{full, false},                        // a prompt answer: the whole lease
		{full - 200*time.Millisecond, false}, // 200ms used, below a third
		{full - 700*time.Millisecond, true},  // 700ms used
	} {
		iv.LeaseLeft = int64(c.left)
		if x := judgeLoss(iv, nil, 300*time.Millisecond, lease, server); x.excused() != c.want {
			t.Errorf("lease left %v: excused = %v, want %v: %v", c.left, x.excused(), c.want, x)
		}
	}
}
