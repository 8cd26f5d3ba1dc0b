package lock4go

import (
	"context"
	"errors"
	"log/slog"
	"time"
)

// What a Template reports of its locks: events to the [Observer], and
// failures to the failure log and the logger. The round trips of each
// executor are counted in roundtrips.go.

// observe tells the Observer, if there is one, of e.
func (t *Template) observe(ctx context.Context, e Event) {
	if t.observer != nil {
		t.observer.Observe(ctx, e)
	}
}

// reportAcquired reports the lock h that a granted.
func (t *Template) reportAcquired(ctx context.Context, a *acquisition, h *hold) {
	if t.observer == nil {
		return
	}
	t.observer.Observe(ctx, Event{
		Kind: EventAcquired, Executor: a.r.name, Key: a.key, Token: h.token,
		Attempts: a.attempts, Wait: h.acquiredAt.Sub(a.start),
	})
}

// notAcquired builds the error of a failed acquisition and reports it:
// ErrNotAcquired when the key stayed busy or the caller gave up, ErrBackend
// when the backend failed or left an attempt unanswered past the grace,
// and a rejected request's own error otherwise.
func (t *Template) notAcquired(ctx context.Context, a *acquisition, last error) error {
	a.begin() // a call that never waited has not started its clock
	aerr := &AcquireError{Key: a.key, Executor: a.r.name, Attempts: a.attempts, Waited: time.Since(a.start), err: classify(ctx, &a.b, last)}
	errors.As(last, &aerr.queue)
	kind := FailureNotAcquired
	if !errors.Is(aerr.err, ErrNotAcquired) {
		kind = FailureBackend
	}
	t.failures.add(kind, a.r.name, a.key, aerr)
	t.observe(ctx, Event{
		Kind: EventNotAcquired, Executor: a.r.name, Key: a.key, Attempts: a.attempts, Wait: aerr.Waited, Err: aerr,
	})
	return aerr
}

// reportReleased counts the release of h (sent at sent, answered with err
// at end) and reports it; a lock found gone is an answer, not a backend
// error.
func (t *Template) reportReleased(ctx context.Context, h *hold, sent, end time.Time, err error) {
	serr := err
	if errors.Is(err, ErrLockNotHeld) {
		serr = nil
	}
	h.reg.stats.record(end, h.reg.elapsed(sent, end), serr)
	t.observe(ctx, Event{Kind: EventReleased, Executor: h.reg.name, Key: h.key, Token: h.token, Held: end.Sub(h.acquiredAt), Err: err})
	if err != nil {
		t.failures.add(FailureRelease, h.reg.name, h.key, err)
		t.cfg.Logger.LogAttrs(ctx, levelError, "lock4go: release failed", attrKey(h.key), attrExec(h.reg.name), attrErr(err))
	}
}

// reportLoss reports the loss of h with err, held for held. A fixed lease
// nobody released ends as planned (a de-duplication window, say): the
// holder is told, but it is not an incident.
func (t *Template) reportLoss(h *hold, err error, held time.Duration, planned bool) {
	kind, fkind, level, msg := EventLost, FailureLost, levelWarn, "lock4go: lock lost"
	if planned {
		kind, fkind, level, msg = EventExpired, FailureExpired, slog.LevelDebug, "lock4go: fixed lease expired"
	}
	t.failures.add(fkind, h.reg.name, h.key, err)
	t.cfg.Logger.LogAttrs(context.Background(), level, msg, attrKey(h.key), attrExec(h.reg.name), attrErr(err))
	t.observe(context.Background(), Event{Kind: kind, Executor: h.reg.name, Key: h.key, Token: h.token, Held: held, Err: err})
}

// reportRenewFailed reports a failed renewal of h.
func (t *Template) reportRenewFailed(h *hold, err error) {
	t.failures.add(FailureRenew, h.reg.name, h.key, err)
	t.observe(context.Background(), Event{Kind: EventRenewFailed, Executor: h.reg.name, Key: h.key, Token: h.token, Err: err})
}
