package redis

import (
	"context"
	"log/slog"
)

// reportRound logs the outcome of a compensation round. The first failure
// after a clean round is a warning; later ones are debug messages until a
// round succeeds entirely, which is logged at info level if a warning was
// given: one warning per outage and cause, not one per round.
func (e *Executor) reportRound(items, failed []voidItem, firstErr error) {
	q := &e.voids
	q.mu.Lock()
	warn := len(failed) > 0 && !q.warned
	recovered := len(failed) == 0 && q.warned
	if len(failed) > 0 {
		q.warned = true
	} else {
		q.warned, q.gaveUp = false, false
	}
	q.mu.Unlock()
	switch {
	case len(failed) > 0:
		level := slog.LevelDebug
		if warn {
			level = slog.LevelWarn
		}
		e.log.Log(context.Background(), level, "redis: an acquisition's reply was lost and removing its possible lock failed; retrying in the background (logged once until removals succeed again)",
			"key", failed[0].l.key(), "count", len(failed), "err", firstErr)
	case recovered:
		e.log.Info("redis: removals of the possible locks of lost replies succeed again", "count", len(items))
	}
}

// reportGiveUps logs compensations given up because their lease has surely
// expired: a warning for the first since a clean round, debug messages
// after it.
func (e *Executor) reportGiveUps(expired []voidItem) {
	if len(expired) == 0 {
		return
	}
	q := &e.voids
	q.mu.Lock()
	level := slog.LevelDebug
	if !q.gaveUp {
		q.gaveUp = true
		level = slog.LevelWarn
	}
	q.mu.Unlock()
	e.log.Log(context.Background(), level, "redis: gave up removing the possible locks of acquisitions whose reply was lost; their leases have expired by now",
		"key", expired[0].l.key(), "count", len(expired))
}
