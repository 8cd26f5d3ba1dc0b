package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lock4go/lock4go"
)

// lostKey is the lock the demo loses on purpose.
const lostKey = "lock4go:demo#lost-on-purpose"

// lostResult is the outcome of losing a lock on purpose.
type lostResult struct {
	detectedAfter time.Duration
	cause         error
	releaseErr    error
	err           error
}

// showLostLock takes a lock, has the backend drop it behind the holder's
// back, and measures how soon the holder's context is cancelled with
// ErrLockLost.
func showLostLock(ctx context.Context, b backend, tpl *lock4go.Template) lostResult {
	var res lostResult
	l, err := tpl.Lock(ctx, lostKey, lock4go.WithAcquireTimeout(5*time.Second))
	if err != nil {
		res.err = err
		return res
	}
	lctx, cancel := l.Context(ctx)
	defer cancel()
	stolen := time.Now()
	if err := b.Steal(ctx, l); err != nil {
		res.err = fmt.Errorf("drop the lock behind its holder: %w", err)
		_ = l.Release(ctx)
		return res
	}
	select {
	case <-lctx.Done():
		res.detectedAfter = time.Since(stolen)
		res.cause = context.Cause(lctx)
	case <-time.After(tpl.Config().Expire):
		res.err = errors.New("the holder was not told within one lease")
	}
	res.releaseErr = l.Release(ctx)
	if res.err == nil && !errors.Is(res.cause, lock4go.ErrLockLost) {
		res.err = fmt.Errorf("cancelled with %v, want ErrLockLost", res.cause)
	}
	if res.err == nil && !errors.Is(res.releaseErr, lock4go.ErrLockNotHeld) {
		res.err = fmt.Errorf("release after loss returned %v, want ErrLockNotHeld", res.releaseErr)
	}
	return res
}
