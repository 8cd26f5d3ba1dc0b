package lock4go

import (
	"fmt"
	"time"

	"github.com/lock4go/lock4go/executor"
)

// How a held lock ends as lost: the backend reports its lease gone
// (AfterLost, armed by track), a renewal finds it gone, or its local end
// passes (expire) before anything noticed.

// What lose does with the backend's lease. A lease the backend reported
// gone, or found gone by a renewal, is left alone; one that ran out by the
// local clock may still be there and is released in the background.
type leaseAfterLoss bool

const (
	leaveLease   leaseAfterLoss = false
	releaseLease leaseAfterLoss = true
)

// lose ends a held lock as lost: it closes Done, cancels bound contexts,
// frees the local queue and, when lease is releaseLease (the backend may still
// hold it), deletes it from the backend in the background.
func (h *hold) lose(reason string, cause error, lease leaseAfterLoss) {
	err := fmt.Errorf("%w: %q: %s", ErrLockLost, h.key, reason)
	if cause != nil {
		err = fmt.Errorf("%w: %q: %s: %w", ErrLockLost, h.key, reason, cause)
	}
	if !h.end(err, endedByLoss) {
		return
	}
	now := time.Now()
	h.t.untrack(h, now)
	planned := !h.renewed && (lease == releaseLease || h.pastEnd(now))
	h.t.reportLoss(h, err, now.Sub(h.acquiredAt), planned)
	if lease == releaseLease {
		go h.t.releaseDetached(h.reg, h.key, h.lease)
	}
}

// LeaseLost implements [executor.LossListener]: it ends the lock as lost
// because its executor reported the lease gone.
func (h *hold) LeaseLost() {
	h.lose("the backend reported the lease gone", executor.LostCause(h.lease), leaveLease)
}

// expire ends the lock as lost because its lease ran out by the local
// clock. The backend may still hold it, so it is released in the
// background.
func (h *hold) expire() {
	switch {
	case h.self:
		h.lose("lease ran out by the local clock: the backend confirmed no keep-alive in time", nil, releaseLease)
	case h.renewed:
		h.lose("lease ran out by the local clock before a renewal succeeded", h.t.wd.renewErr(h), releaseLease)
	default:
		h.lose("fixed lease expired", nil, releaseLease)
	}
}

// lossWatch is a lock's registration for its lease's loss: a listener of
// an [executor.LossNotifier], which costs no allocation, or a function of
// [executor.Lease.AfterLost]. The zero value is no registration.
type lossWatch struct {
	s  lossStopper // the notifier, or AfterLost's stop
	id uint64
}

// lossStopper cancels a registration for a loss: an
// [executor.LossNotifier], or AfterLost's stop function (afterStop). One
// interface for both keeps the hold in a smaller size class.
type lossStopper interface{ StopNotify(id uint64) bool }

// afterStop is the stop function [executor.Lease.AfterLost] returns.
type afterStop func() bool

// StopNotify calls f.
func (f afterStop) StopNotify(uint64) bool { return f() }

// stop cancels the registration.
func (w lossWatch) stop() {
	if w.s != nil {
		w.s.StopNotify(w.id)
	}
}

// watchLoss registers h for its lease's loss, which ends it as lost. A
// lease lost already ends it from a goroutine of its own, as AfterLost
// has it.
func (h *hold) watchLoss() lossWatch {
	n, ok := h.lease.(executor.LossNotifier)
	if !ok {
		if stop := h.lease.AfterLost(h.LeaseLost); stop != nil {
			return lossWatch{s: afterStop(stop)}
		}
		return lossWatch{}
	}
	id, ok := n.NotifyLost(h)
	if !ok {
		go h.LeaseLost()
		return lossWatch{}
	}
	return lossWatch{s: n, id: id}
}
