package middleware

import (
	"time"

	"github.com/lock4go/lock4go/failure"
	"github.com/lock4go/lock4go/internal/lockspec"
)

// Spec describes how one route is locked: Lock4j's @Lock4j attributes. The
// zero value locks every request on one key named after the route, with
// the Template's defaults. As everywhere in lock4go, a zero field means
// the default and a negative one is a construction error (see "Zero
// values" in package lock4go).
//
// Limits a request meets while its key is built (see package keybuilder):
// the body is read up to [keybuilder.DefaultMaxBodyBytes] (1 MiB) for
// json., form. and query-beside-a-body expressions, a longer one refused
// with 413; a part longer than [keybuilder.DefaultMaxPartLen] (64 KiB,
// before escaping) is refused with 400; a key longer than
// [keybuilder.DefaultMaxKeyLen] (512 bytes) is hashed. [WithKeyOptions]
// changes the caps.
type Spec struct {
	// Name is the key's name part. Zero means the route pattern
	// (r.Pattern, so wrap the handler you register on the http.ServeMux).
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
	// same key run at once. Zero means no semaphore. With Shared it is
	// invalid. The executor must have semaphores.
	Permits int

	// Expire is a fixed lease that is not renewed (Lock4j's expire). Zero
	// means the Template's Expire, renewed by the watchdog until release.
	Expire time.Duration

	// AcquireTimeout bounds the wait for a busy key. Zero means the
	// Template's AcquireTimeout. For one attempt, set NoWait.
	AcquireTimeout time.Duration

	// NoWait makes a single attempt (lock4go.NoWait): a busy key is
	// answered at once (429 by default), whatever AcquireTimeout says.
	NoWait bool

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

	// Failure answers requests whose lock was not obtained. Nil means the
	// middleware's default (see [WithFailure]).
	Failure failure.HTTPHandler
}

// attrs returns the lock attributes of s.
func (s *Spec) attrs() *lockspec.Attrs {
	return &lockspec.Attrs{
		Keys: s.Keys, Each: s.Each, Shared: s.Shared, Permits: s.Permits,
		Expire: s.Expire, AcquireTimeout: s.AcquireTimeout, NoWait: s.NoWait,
		RetryInterval: s.RetryInterval, Executor: s.Executor, KeepUntilExpire: s.KeepUntilExpire,
	}
}
