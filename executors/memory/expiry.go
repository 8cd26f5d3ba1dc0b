package memory

import (
	"container/heap"
	"time"
)

// expiries are the executor's leases in deadline order, with one timer for
// all of them: a grant or a release costs a heap operation under the
// executor's mutex, not a timer of its own. The timer is armed for the
// earliest deadline it has been asked for and left armed when that lease
// goes (firing early only re-arms it), so that back-to-back locks with the
// same TTL, whose deadlines only grow, never touch it. All fields are
// guarded by the executor's mutex.
type expiries struct {
	heap    leaseHeap
	timer   *time.Timer
	planned time.Time // when the timer fires; zero when it is not armed
}

// schedule adds l, whose deadline is set, to the expiries. The caller
// holds e.mu.
func (e *Executor) schedule(l *lease) {
	heap.Push(&e.exp.heap, l)
	e.arm(l.deadline)
}

// reschedule moves l, whose deadline changed, in the expiries. The caller
// holds e.mu.
func (e *Executor) reschedule(l *lease) {
	heap.Fix(&e.exp.heap, l.index)
	e.arm(l.deadline)
}

// unschedule removes l from the expiries. The caller holds e.mu.
func (e *Executor) unschedule(l *lease) {
	if l.index >= 0 {
		heap.Remove(&e.exp.heap, l.index)
	}
}

// arm makes the timer fire at at the latest. The caller holds e.mu.
func (e *Executor) arm(at time.Time) {
	x := &e.exp
	if !x.planned.IsZero() && !at.Before(x.planned) {
		return
	}
	x.planned = at
	if x.timer == nil {
		x.timer = time.AfterFunc(time.Until(at), e.expireDue)
		return
	}
	x.timer.Reset(time.Until(at))
}

// expireDue runs from the timer: it ends the leases whose deadline passed,
// as lost, and arms the timer for the next deadline.
func (e *Executor) expireDue() {
	e.mu.Lock()
	x := &e.exp
	x.planned = time.Time{}
	now := time.Now()
	var runs []func()
	for len(x.heap) > 0 && !x.heap[0].deadline.After(now) {
		l := x.heap[0]
		e.drop(l) // unschedules l
		runs = append(runs, l.loss.End(errExpired))
	}
	if len(x.heap) > 0 && !e.closed {
		e.arm(x.heap[0].deadline)
	}
	e.mu.Unlock()
	for _, run := range runs {
		run()
	}
}

// leaseHeap orders leases by deadline.
type leaseHeap []*lease

func (q leaseHeap) Len() int           { return len(q) }
func (q leaseHeap) Less(i, j int) bool { return q[i].deadline.Before(q[j].deadline) }
func (q leaseHeap) Swap(i, j int) {
	q[i], q[j] = q[j], q[i]
	q[i].index, q[j].index = i, j
}
func (q *leaseHeap) Push(x any) {
	l := x.(*lease)
	l.index = len(*q)
	*q = append(*q, l)
}
func (q *leaseHeap) Pop() any {
	old := *q
	l := old[len(old)-1]
	old[len(old)-1] = nil
	l.index = -1
	*q = old[:len(old)-1]
	return l
}
