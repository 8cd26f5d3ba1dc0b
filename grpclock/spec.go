package grpclock

import (
	"time"

	"github.com/lock4go/lock4go/internal/lockspec"
)

// Spec describes how one gRPC method is locked: Lock4j's @Lock4j
// attributes, as middleware.Spec has them for HTTP routes. The zero value
// locks every call on one key named after the method, with the Template's
// defaults. A zero field means the default and a negative one is a
// construction error (see "Zero values" in package lock4go).
//
// Limits a call meets while its key is built: a part longer than
// [keybuilder.DefaultMaxPartLen] (64 KiB of raw value, before escaping: a
// bytes field's bytes, not its base64 form; see [WithMaxPartLen]) is
// refused with InvalidArgument, a key longer than
// [keybuilder.DefaultMaxKeyLen] (512 bytes) is hashed, streaming the
// parts into the hash, whatever [WithMaxKeyLen] says.
type Spec struct {
	// Name is the key's name part. Zero means the full method
	// ("/pkg.Service/Method").
	Name string

	// Keys are key expressions, parsed once at construction: req.<a.b> (a
	// scalar field of the request message), md.<key> (incoming metadata),
	// method, ip (the peer's address) and func.<name> ([WithKeyFunc]),
	// each optionally followed by "|int", "|float" or "|base64" (see
	// package keybuilder). A stream's keys cannot read the request: see the
	// package documentation. Zero means no parts: every call shares one
	// key.
	Keys []string

	// Each are key expressions that build a key each, all held while the
	// call runs, taken with Template.LockAll (see middleware.Spec.Each).
	// Zero means one key, built from Keys.
	Each []string

	// Shared takes read locks (lock4go.Shared). The executor must have
	// read locks.
	Shared bool

	// Permits, when positive, takes one of Permits permits of a semaphore
	// on the key (lock4go.WithPermits). Zero means no semaphore. With
	// Shared it is invalid.
	Permits int

	// Expire is a fixed lease that is not renewed (Lock4j's expire). Zero
	// means the Template's Expire, renewed by the watchdog until release.
	Expire time.Duration

	// AcquireTimeout bounds the wait for a busy key. Zero means the
	// Template's AcquireTimeout. For one attempt, set NoWait.
	AcquireTimeout time.Duration

	// NoWait makes a single attempt (lock4go.NoWait): a busy key is
	// answered at once (Aborted by default), whatever AcquireTimeout says.
	NoWait bool

	// RetryInterval is the pause between attempts. Zero means the
	// Template's.
	RetryInterval time.Duration

	// Executor names the executor. Zero means the Template's primary.
	Executor string

	// KeepUntilExpire leaves the lock held after the handler returns,
	// until its lease ends (Lock4j's autoRelease=false). It requires
	// Expire > 0.
	KeepUntilExpire bool

	// Failure answers calls whose lock was not obtained. Nil means the
	// default of [New]'s options (see [WithFailure]).
	Failure FailureHandler
}

// attrs returns the lock attributes of s.
func (s *Spec) attrs() *lockspec.Attrs {
	return &lockspec.Attrs{
		Keys: s.Keys, Each: s.Each, Shared: s.Shared, Permits: s.Permits,
		Expire: s.Expire, AcquireTimeout: s.AcquireTimeout, NoWait: s.NoWait,
		RetryInterval: s.RetryInterval, Executor: s.Executor, KeepUntilExpire: s.KeepUntilExpire,
	}
}
