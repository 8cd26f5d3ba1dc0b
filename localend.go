package lock4go

import "time"

// A lock's local end is when its lease may end by the local clock: the send
// time of the last request the backend confirmed the lease with, plus the
// lease, less the safety margin. Past it the backend may have handed the
// lock to someone else, so the lock is lost from that instant on, whether
// or not a timer or goroutine has noticed yet: Err (of the Lock and of its
// contexts) reads the clock itself and ends the lock when it finds the end
// passed. The watchdog ends it too, by a timer, for Done.

// localEnd returns the lock's local end: the earlier of the Template's own
// (for a lease it renews or that has a fixed expiry) and the lease's
// (executor.LocalEnder). The zero time means none: a lease the backend
// renews that does not tell its end.
func (h *held) localEnd() time.Time {
	var end time.Time
	if !h.self {
		end = h.leaseEnd.Load()
	}
	if h.ender != nil {
		if e := h.ender.LocalEnd(); end.IsZero() || e.Before(end) {
			end = e
		}
	}
	return end
}

// pastEnd reports whether the lock's local end has passed at now: a clock
// comparison with an atomic load (and the lease's LocalEnd).
func (h *held) pastEnd(now time.Time) bool {
	if !h.self && h.leaseEnd.Passed(now) {
		return true
	}
	return h.ender != nil && !now.Before(h.ender.LocalEnd())
}

// check returns the lock's error: nil while it is held by the local clock at
// now. Past its local end it first ends the lock as lost (expire).
func (h *held) check(now time.Time) error {
	if !h.ended.Load() {
		if !h.pastEnd(now) {
			return nil
		}
		h.expire()
	}
	return h.errValue()
}

// expire ends the lock as lost because its lease ran out by the local
// clock. The backend may still hold it, so it is released in the
// background.
func (h *held) expire() {
	switch {
	case h.self:
		h.lose("lease ran out by the local clock: the backend confirmed no keep-alive in time", nil, releaseLease)
	case h.renewed:
		h.lose("lease ran out by the local clock before a renewal succeeded", h.t.wd.renewErr(h), releaseLease)
	default:
		h.lose("fixed lease expired", nil, releaseLease)
	}
}
