package executor

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Request describes one attempt: one call of [Executor.Acquire].
type Request struct {
	// Key is the lock key exactly as the caller gave it. Executors may map it
	// into their own namespace (a ZooKeeper base path, an escaped name), and
	// document how.
	Key string

	// Owner is a unique, crypto-random value for this attempt. Release
	// and renewal only touch a lock whose stored owner equals it.
	Owner string

	// TTL is the lease length. It is always positive.
	TTL time.Duration

	// Renewed is true when the Template's watchdog will keep the lease alive
	// (no explicit expire). Executors with self-renewing leases may use it to
	// pick a shared keep-alive session instead of a lease of their own.
	Renewed bool

	// Wait allows a queue-based executor to wait inside Acquire, in FIFO
	// order, until WaitUntil (or until ctx is done). When false (TryLock)
	// Acquire must make one attempt and return at once.
	Wait bool

	// WaitUntil ends a wait in the queue: at WaitUntil a queue-based
	// executor gives up, cleans up and returns [ErrNotAcquired]. Zero means
	// until ctx is done. The Template's ctx ends later than WaitUntil, by its
	// attempt grace, so that a round trip in flight when the wait ends still
	// completes and its answer counts: ctx bounds round trips, WaitUntil
	// bounds waiting.
	WaitUntil time.Time

	// Shared asks for a read lock of Key: readers exclude only writers
	// (requests without Shared or Permits, which take the key's write lock,
	// the same as a mutex). Once a writer waits, readers that come later
	// wait behind it. Only executors with [Capabilities.SharedLocks] get
	// such requests from the Template.
	Shared bool

	// Permits, when positive, asks for one of Permits permits of a
	// semaphore on Key: at most Permits holders at once, each with its own
	// lease and token. Holders of one key must agree on Permits: an
	// executor that sees a different count in use, or the key in use as a
	// lock, returns an error wrapping [ErrInvalidConfig]. Only executors
	// with [Capabilities.Semaphores] get such requests from the Template.
	Permits int

	// Followers is true when other callers of this process wait for the key
	// behind this request (the Template's local queue). An executor whose
	// waiters queue on the backend ([WaitQueued]) may keep
	// the process queued when this request takes the key, so that the next
	// caller need not join the queue again.
	Followers bool
}

// Validate checks what every executor needs of a request: a key, an owner,
// a positive TTL, no negative permits, and not both Shared and Permits. Its error wraps [ErrInvalidKey] or
// [ErrInvalidConfig]; executors prefix it with their name and return it
// before any round trip.
func (r Request) Validate() error {
	switch {
	case r.Key == "":
		return fmt.Errorf("empty key: %w", ErrInvalidKey)
	case r.Owner == "":
		return fmt.Errorf("%q: empty owner: %w", r.Key, ErrInvalidConfig)
	case r.TTL <= 0:
		return fmt.Errorf("%q: ttl %v: %w", r.Key, r.TTL, ErrInvalidConfig)
	case r.Permits < 0:
		return fmt.Errorf("%q: %d permits: %w", r.Key, r.Permits, ErrInvalidConfig)
	case r.Permits > 0 && r.Shared:
		return fmt.Errorf("%q: a read lock of a semaphore: %w", r.Key, ErrInvalidConfig)
	}
	return nil
}

// ValidateFor checks r as [Request.Validate] does and its TTL against c, the
// capabilities of the executor it is for ([Capabilities.CheckTTL]). Every
// executor calls it at the start of Acquire with its own capabilities.
func (r Request) ValidateFor(c Capabilities) error {
	if err := r.Validate(); err != nil {
		return err
	}
	if err := c.CheckTTL(r.TTL); err != nil {
		return fmt.Errorf("%q: %w", r.Key, err)
	}
	return nil
}

// SafetyMargin is taken off the end of a lease of length ttl as measured
// by the local clock, for rate differences between the local clock and the
// backend's: the Template ends a lock at [Lease.Start] plus the TTL less
// this margin, and executors that watch leases of their own do the same.
func SafetyMargin(ttl time.Duration) time.Duration { return ttl / 50 }

// ValidateKey checks that key can be stored faithfully by a backend whose
// keys are text of at most maxLen bytes: not empty, not longer, valid
// UTF-8 and without NUL. Its error wraps [ErrInvalidKey]; executors with
// such keys prefix it with their name and return it before any round
// trip, for every call that takes a key.
func ValidateKey(key string, maxLen int) error {
	switch {
	case key == "":
		return fmt.Errorf("empty key: %w", ErrInvalidKey)
	case len(key) > maxLen:
		return fmt.Errorf("key of %d bytes, longer than %d: %w", len(key), maxLen, ErrInvalidKey)
	case !utf8.ValidString(key):
		return fmt.Errorf("key %q is not valid UTF-8: %w", key, ErrInvalidKey)
	case strings.IndexByte(key, 0) >= 0:
		return fmt.Errorf("key %q contains NUL: %w", key, ErrInvalidKey)
	}
	return nil
}

// Duration is a named duration of a configuration, for [NonNegative].
type Duration struct {
	Name  string
	Value time.Duration
}

// NonNegative returns an error wrapping [ErrInvalidConfig] that names the
// first of ds that is negative ("ClaimWindow -1s is negative"), and nil
// when none is. Executors check their options with it in their
// constructor, and prefix its error with their name.
func NonNegative(ds ...Duration) error {
	for _, d := range ds {
		if d.Value < 0 {
			return fmt.Errorf("%s %v is negative: %w", d.Name, d.Value, ErrInvalidConfig)
		}
	}
	return nil
}
