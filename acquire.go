package lock4go

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/lock4go/lock4go/executor"
)

// errAcquireTimeout is the cause of the acquire loop's own deadline, telling
// it apart from the caller's context ending.
var errAcquireTimeout = errors.New("lock4go: acquire timeout")

// lock validates the call, re-enters a lock carried by ctx, and otherwise
// runs the acquire loop behind the local queue.
func (t *Template) lock(ctx context.Context, key string, opts []LockOption, try bool) (*Lock, error) {
	if err := validKey(key); err != nil {
		return nil, err
	}
	o, err := t.cfg.resolve(opts)
	if err != nil {
		return nil, err
	}
	e, err := t.executor(o.executor)
	if err != nil {
		return nil, err
	}
	if h := heldFrom(ctx, t, e.Name(), key); h != nil {
		return h.reenter()
	}
	if o.acquireTimeout == 0 {
		try = true
	}
	start := time.Now()
	w := waitContext{parent: ctx, deadline: start.Add(o.acquireTimeout)}
	defer w.stop()
	if !try && !inProcess(e) {
		w.bound() // every call to a networked backend is bounded by the deadline
	}

	slot, err := t.queue.acquire(&w, e.Name(), key, try)
	if err != nil {
		return nil, t.notAcquired(ctx, w.ctx(), e, key, start, 0, err)
	}
	h, attempts, err := t.acquire(&w, e, key, o, try)
	if err != nil {
		t.queue.release(slot)
		return nil, t.notAcquired(ctx, w.ctx(), e, key, start, attempts, err)
	}
	h.slot = slot
	h.attempts = attempts
	t.track(h)
	t.cfg.Observer.Observe(ctx, Event{
		Kind: EventAcquired, Executor: e.Name(), Key: key, Token: h.token,
		Attempts: attempts, Wait: h.acquiredAt.Sub(start),
	})
	return &h.first, nil
}

// waitContext is the acquire loop's context: the caller's, bounded by the
// acquire deadline once bound is called. In-process executors are not
// bounded until a wait begins, which spares the uncontended path a timer.
type waitContext struct {
	parent   context.Context
	deadline time.Time
	bounded  context.Context
	cancel   context.CancelFunc
}

// bound returns the context bounded by the acquire deadline.
func (w *waitContext) bound() context.Context {
	if w.bounded == nil {
		w.bounded, w.cancel = context.WithDeadlineCause(w.parent, w.deadline, errAcquireTimeout)
	}
	return w.bounded
}

// ctx returns the bounded context if there is one, else the caller's.
func (w *waitContext) ctx() context.Context {
	if w.bounded != nil {
		return w.bounded
	}
	return w.parent
}

func (w *waitContext) stop() {
	if w.cancel != nil {
		w.cancel()
	}
}

func inProcess(e executor.Executor) bool {
	ip, ok := e.(executor.InProcess)
	return ok && ip.InProcess()
}

// acquire is the acquire loop: attempt, and while the key is busy or the
// backend fails, wait the retry interval (or less, when the executor reports
// a release) until the deadline or the caller's context ends. It returns the
// attempt count and the last error.
func (t *Template) acquire(w *waitContext, e executor.Executor, key string, o lockOptions, try bool) (*held, int, error) {
	req := executor.Request{Key: key, TTL: o.expire, Renewed: !o.expireSet, Wait: !try}
	waiter, _ := e.(executor.Waiter)
	var (
		released <-chan struct{}
		stop     func()
		timer    *time.Timer
		attempts int
	)
	defer func() {
		if stop != nil {
			stop()
		}
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		attempts++
		// A fresh owner value per attempt: an earlier attempt whose reply was
		// lost may still land, or be compensated by a delete of its owner,
		// and must never be mistaken for this one.
		req.Owner = newOwner()
		actx := w.ctx()
		began := time.Now()
		lease, err := e.Acquire(actx, req)
		if err == nil {
			if actx.Err() != nil {
				// The reply came after the deadline: the caller has given up,
				// so this lease must not be reported as held.
				t.releaseDetached(e, key, lease)
				return nil, attempts, fmt.Errorf("%w: %w", ErrNotAcquired, context.Cause(actx))
			}
			return t.newHeld(e, key, req, lease, began), attempts, nil
		}
		if try || actx.Err() != nil || errors.Is(err, ErrInvalidConfig) || errors.Is(err, ErrInvalidKey) {
			return nil, attempts, err
		}
		actx = w.bound() // from here on the loop waits
		if actx.Err() != nil {
			return nil, attempts, err
		}
		busy := errors.Is(err, ErrNotAcquired)
		if busy && waiter != nil && stop == nil {
			// Subscribe, then try again at once: a release between the
			// failed attempt and the subscription would otherwise be missed.
			released, stop = waiter.WatchRelease(actx, key)
			continue
		}
		if timer == nil {
			timer = time.NewTimer(o.retryInterval)
		} else {
			timer.Reset(o.retryInterval)
		}
		wake := released
		if !busy {
			wake = nil // a backend error waits the full interval
		}
		select {
		case <-wake:
		case <-timer.C:
		case <-actx.Done():
			return nil, attempts, err
		}
	}
}

// notAcquired builds the error for a failed acquisition and reports it.
func (t *Template) notAcquired(ctx, actx context.Context, e executor.Executor, key string, start time.Time, attempts int, last error) error {
	ctxEnded := actx.Err() != nil && (errors.Is(last, context.Canceled) ||
		errors.Is(last, context.DeadlineExceeded) || errors.Is(last, errAcquireTimeout))
	var err error
	switch {
	case last == nil || errors.Is(last, ErrNotAcquired) || ctxEnded && !errors.Is(last, ErrBackend):
		err = ErrNotAcquired
		if ctx.Err() != nil {
			err = fmt.Errorf("%w: %w", ErrNotAcquired, context.Cause(ctx))
		}
	case errors.Is(last, ErrBackend):
		err = last
	case actx.Err() != nil:
		err = fmt.Errorf("%w: %w", ErrBackend, last)
	default:
		err = last // a request the executor rejects, such as an invalid TTL
	}
	aerr := &AcquireError{Key: key, Executor: e.Name(), Attempts: attempts, Waited: time.Since(start), err: err}
	t.cfg.Observer.Observe(ctx, Event{
		Kind: EventNotAcquired, Executor: e.Name(), Key: key, Attempts: attempts, Wait: aerr.Waited, Err: aerr,
	})
	return aerr
}

// releaseContext returns the context a release runs on: detached from the
// caller's (so a cancelled request still releases) and bounded by
// ReleaseTimeout, except for in-process executors, which never block.
func (t *Template) releaseContext(e executor.Executor, ctx context.Context) (context.Context, context.CancelFunc) {
	if ip, ok := e.(executor.InProcess); ok && ip.InProcess() {
		return context.Background(), func() {}
	}
	return context.WithTimeout(context.WithoutCancel(ctx), t.cfg.ReleaseTimeout)
}

// releaseDetached releases a lease that must not be reported as held, on a
// context of its own.
func (t *Template) releaseDetached(e executor.Executor, key string, l executor.Lease) {
	ctx, cancel := t.releaseContext(e, context.Background())
	defer cancel()
	if err := l.Release(ctx); err != nil && !errors.Is(err, ErrLockNotHeld) {
		t.cfg.Logger.LogAttrs(ctx, levelError, "lock4go: releasing an abandoned lease failed; it ends with its TTL",
			attrKey(key), attrExec(e.Name()), attrErr(err))
	}
}

// newOwner returns a 128-bit crypto-random owner value.
func newOwner() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	var s [32]byte
	hex.Encode(s[:], b[:])
	return string(s[:])
}
