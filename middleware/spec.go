package middleware

import (
	"fmt"
	"slices"
	"time"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/failure"
)

// NoWait, as Spec.AcquireTimeout, makes a single attempt: a busy key fails at
// once. Any negative AcquireTimeout means the same.
const NoWait time.Duration = -1

// Spec describes how one route or gRPC method is locked: Lock4j's @Lock4j
// attributes. The zero value locks every request on one key named after the
// route, with the Template's defaults.
type Spec struct {
	// Name is the key's name part. Zero means the route pattern (r.Pattern,
	// so wrap the handler you register on the http.ServeMux) or the gRPC
	// full method.
	Name string

	// Keys are key expressions (see package keybuilder), parsed once at
	// construction. Zero means no parts: every request shares one key.
	Keys []string

	// Each are key expressions that build a key each, all held while the
	// request runs: a transfer locks both accounts with
	// Each: []string{"json.from", "json.to"}. Each key is
	// <prefix>:<name>#<parts of Keys>:<part of its expression>, and they
	// are taken with Template.LockAll: in one canonical order (transfers in
	// opposite directions never deadlock), within one acquire timeout, all
	// or none. Expressions that give the same value lock one key. Zero
	// means one key, built from Keys.
	Each []string

	// Shared takes read locks (lock4go.Shared): requests with the same key
	// run together, and wait only for a writer (a Spec without Shared on
	// the same key, or Template.Lock). The executor must have read locks.
	Shared bool

	// Permits, when positive, takes one of Permits permits of a semaphore
	// on the key (lock4go.WithPermits): at most Permits requests with the
	// same key run at once. With Shared it is invalid. The executor must
	// have semaphores.
	Permits int

	// Expire is a fixed lease that is not renewed (Lock4j's expire). Zero
	// means the Template's Expire, renewed by the watchdog until release.
	Expire time.Duration

	// AcquireTimeout bounds the wait for a busy key. Zero means the
	// Template's AcquireTimeout; [NoWait] (any negative value) means a single
	// attempt.
	AcquireTimeout time.Duration

	// RetryInterval is the pause between attempts. Zero means the Template's.
	RetryInterval time.Duration

	// Executor names the executor. Zero means the Template's primary.
	Executor string

	// KeepUntilExpire leaves the lock held after the handler returns, until
	// its lease ends: Lock4j's autoRelease=false, a de-duplication window
	// ("one submit per order per 10s"). It requires Expire > 0. The lock is
	// kept whatever the outcome: error, panic or client disconnect. The zero
	// value releases the lock when the handler returns (autoRelease=true).
	KeepUntilExpire bool

	// HTTPFailure answers HTTP requests whose lock was not obtained. Nil
	// means the middleware's default (see [WithHTTPFailure]).
	HTTPFailure failure.HTTPHandler

	// GRPCFailure answers gRPC calls whose lock was not obtained. Nil means
	// the interceptor's default (see [WithGRPCFailure]).
	GRPCFailure failure.GRPCHandler
}

// compiled is a validated Spec.
type compiled struct {
	lockOpts []lock4go.LockOption
	wait     time.Duration // the effective acquire timeout, for Retry-After
	keep     bool
}

func (s *Spec) compile(tpl *lock4go.Template, where string) (compiled, error) {
	if tpl == nil {
		return compiled{}, fmt.Errorf("middleware: nil Template: %w", lock4go.ErrInvalidConfig)
	}
	cfg := tpl.Config()
	c := compiled{wait: cfg.AcquireTimeout, keep: s.KeepUntilExpire}
	switch {
	case s.Expire < 0:
		return c, fmt.Errorf("middleware: %s: Expire %v is negative: %w", where, s.Expire, lock4go.ErrInvalidConfig)
	case s.RetryInterval < 0:
		return c, fmt.Errorf("middleware: %s: RetryInterval %v is negative: %w", where, s.RetryInterval, lock4go.ErrInvalidConfig)
	case s.KeepUntilExpire && s.Expire == 0:
		return c, fmt.Errorf("middleware: %s: KeepUntilExpire needs Expire > 0: %w", where, lock4go.ErrInvalidConfig)
	case s.Permits < 0:
		return c, fmt.Errorf("middleware: %s: Permits %d is negative: %w", where, s.Permits, lock4go.ErrInvalidConfig)
	case s.Shared && s.Permits > 0:
		return c, fmt.Errorf("middleware: %s: Shared and Permits together: %w", where, lock4go.ErrInvalidConfig)
	case s.Executor != "" && !slices.Contains(tpl.Executors(), s.Executor):
		return c, fmt.Errorf("middleware: %s: executor %q is not registered: %w: %w",
			where, s.Executor, lock4go.ErrInvalidConfig, lock4go.ErrUnknownExecutor)
	}
	if s.Expire > 0 {
		c.lockOpts = append(c.lockOpts, lock4go.WithExpire(s.Expire))
	}
	switch {
	case s.AcquireTimeout < 0:
		c.wait = 0
		c.lockOpts = append(c.lockOpts, lock4go.WithAcquireTimeout(0))
	case s.AcquireTimeout > 0:
		c.wait = s.AcquireTimeout
		c.lockOpts = append(c.lockOpts, lock4go.WithAcquireTimeout(s.AcquireTimeout))
	}
	if s.RetryInterval > 0 {
		c.lockOpts = append(c.lockOpts, lock4go.WithRetryInterval(s.RetryInterval))
	}
	if s.Executor != "" {
		c.lockOpts = append(c.lockOpts, lock4go.WithExecutor(s.Executor))
	}
	switch {
	case s.Shared:
		c.lockOpts = append(c.lockOpts, lock4go.Shared())
	case s.Permits > 0:
		c.lockOpts = append(c.lockOpts, lock4go.WithPermits(s.Permits))
	}
	return c, nil
}
