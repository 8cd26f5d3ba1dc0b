package queued

import (
	"slices"
	"testing"
	"time"
)

// woken reports whether w has a pending wake, taking it.
func woken(w *Watcher) bool {
	select {
	case <-w.C():
		return true
	default:
		return false
	}
}

func TestWaits_addRemove(t *testing.T) {
	var q Waits
	if q.Active() || q.Queued("k") {
		t.Fatal("a zero Waits is active")
	}
	a, b := NewWatcher(), NewWatcher()
	q.Add("k", a, time.Second)
	q.Add("k", b, time.Second)
	if !q.Active() || !q.Queued("k") {
		t.Fatal("a watched key is not queued")
	}
	if q.Quiet("k", time.Now(), time.Second) {
		t.Fatal("a key is quiet before any poll since its watch")
	}
	if q.Remove("k", a) {
		t.Fatal("Remove of one of two watchers reported the last")
	}
	q.SetQueued("k", false)
	if q.Remove("k", b) || q.Active() {
		t.Fatal("the last watcher of a key no longer queued left it queued")
	}
}

func TestWaits_wakeBeforeWatcher(t *testing.T) {
	var q Waits
	q.Wake("k", time.Minute)
	w := NewWatcher()
	q.Add("k", w, time.Minute)
	if !woken(w) {
		t.Fatal("a wake that came before the watcher was not kept")
	}
	if q.Quiet("k", time.Now(), time.Second) {
		t.Fatal("a woken key is quiet")
	}
	q.PolledAt("k", time.Now())
	q.SetQueued("k", true)
	if !q.Quiet("k", time.Now(), time.Second) {
		t.Fatal("a key polled after its wake is not quiet")
	}
	late := NewWatcher()
	q.Wake("other", 0)
	q.Add("other", late, 0)
	if woken(late) {
		t.Fatal("a wake older than its window woke a watcher")
	}
}

func TestWaits_leaveLaterCancelled(t *testing.T) {
	var q Waits
	w := NewWatcher()
	q.Add("k", w, time.Second)
	if !q.Remove("k", w) {
		t.Fatal("the last watcher of a queued key did not report it")
	}
	left := make(chan struct{})
	q.LeaveLater("k", time.Hour, func() { close(left) })
	q.Add("k", NewWatcher(), time.Second) // a waiter comes back
	if len(q.leaving) != 0 {
		t.Fatal("a returning watcher did not cancel the departure")
	}
	gone := NewWatcher()
	q.Add("j", gone, time.Second)
	q.Remove("j", gone)
	ran := make(chan struct{})
	q.LeaveLater("j", time.Millisecond, func() { close(ran) })
	<-ran
	select {
	case <-left:
		t.Fatal("a cancelled departure ran")
	default:
	}
}

func TestWaits_close(t *testing.T) {
	var q Waits
	w := NewWatcher()
	q.Add("watched", w, time.Second)
	q.SetAhead("ahead")
	gone := NewWatcher()
	q.Add("leaving", gone, time.Second)
	q.Remove("leaving", gone)
	q.LeaveLater("leaving", time.Hour, func() { t.Error("a departure ran after Close") })
	keys := q.Close()
	slices.Sort(keys)
	if !slices.Equal(keys, []string{"ahead", "leaving", "watched"}) {
		t.Fatalf("Close returned %v", keys)
	}
	if !woken(w) {
		t.Fatal("Close did not wake a watcher")
	}
	q.LeaveLater("watched", time.Millisecond, func() { t.Error("a departure was scheduled after Close") })
	if q.TakeAhead("ahead") {
		t.Fatal("Close kept a key queued again for followers")
	}
}

func TestWaits_ahead(t *testing.T) {
	var q Waits
	q.SetAhead("k")
	if !q.Active() || !q.TakeAhead("k") || q.TakeAhead("k") {
		t.Fatal("TakeAhead does not report a key queued again once")
	}
	q.SetAhead("k")
	q.Wake("k", time.Second)
	if q.TakeAhead("k") {
		t.Fatal("a wake did not end the key's queueing for followers")
	}
}

// TestWaits_Quiet checks when a poll makes a key quiet: once its answer is
// recorded, for every after the poll was asked, until a wake of any kind; a
// wake during the poll's round trip, and a poll with no answer, leave the
// key to the next attempt.
func TestWaits_Quiet(t *testing.T) {
	var q Waits
	now := time.Now()
	q.Add("k", NewWatcher(), time.Minute)
	q.PolledAt("k", now)
	if q.Quiet("k", now, time.Second) {
		t.Fatal("quiet while the poll's answer is on its way")
	}
	q.SetQueued("k", true)
	if !q.Quiet("k", now, time.Second) || q.Quiet("k", now.Add(time.Second), time.Second) {
		t.Fatal("an answered poll is not quiet for exactly every after it asked")
	}
	for name, wake := range map[string]func(){
		"Wake":       func() { q.Wake("k", time.Minute) },
		"WakeShared": func() { q.WakeShared("k", time.Minute) },
		"WakeAll":    q.WakeAll,
	} {
		q.PolledAt("k", now)
		q.SetQueued("k", true)
		wake()
		if q.Quiet("k", now, time.Second) {
			t.Fatalf("quiet after %s", name)
		}
	}
	q.PolledAt("k", now)
	q.Wake("k", time.Minute) // the release outran the poll's answer
	q.SetQueued("k", true)
	if q.Quiet("k", now, time.Second) {
		t.Fatal("a wake during the poll's round trip was forgotten")
	}
	q.PolledAt("k", now) // no answer: a backend error
	if q.Quiet("k", now, time.Second) {
		t.Fatal("a poll with no answer made the key quiet")
	}
}

// TestWaits_Joined checks that the attempt that queued the executor for a
// key nobody watched counts as the watch's poll when no wake came since
// it asked, and does not when one came, whatever its key, or when the
// attempt took the key instead.
func TestWaits_Joined(t *testing.T) {
	now := time.Now()
	var q Waits
	q.Joined("k", q.Ask(now))
	q.Add("k", NewWatcher(), time.Minute)
	if !q.Quiet("k", now, time.Second) || q.Quiet("k", now.Add(time.Second), time.Second) {
		t.Fatal("the queuing attempt is not the poll, quiet for every after it asked")
	}
	for name, wake := range map[string]func(q *Waits){
		"this key":  func(q *Waits) { q.Wake("k", time.Minute) },
		"other key": func(q *Waits) { q.Wake("other", time.Minute) },
		"WakeAll":   func(q *Waits) { q.WakeAll() },
	} {
		var q Waits
		a := q.Ask(now)
		wake(&q) // a release between the attempt and the watch
		q.Joined("k", a)
		q.Add("k", NewWatcher(), time.Minute)
		if q.Quiet("k", now, time.Second) {
			t.Fatalf("quiet after a wake (%s) between the attempt and the watch", name)
		}
	}
	var q2 Waits
	q2.Joined("k", q2.Ask(now))
	q2.SetQueued("k", false) // a later attempt took the key
	if q2.Active() {
		t.Fatal("a taken key's joined attempt is kept")
	}
	q2.Add("k", NewWatcher(), time.Minute)
	if q2.Quiet("k", now, time.Second) {
		t.Fatal("an attempt that took the key counted as a later watch's poll")
	}
}
