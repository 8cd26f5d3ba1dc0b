package executor

import (
	"fmt"
	"time"
)

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

// SafetyMargin is taken off the end of a lease of length ttl as measured
// by the local clock, for rate differences between the local clock and the
// backend's: the Template ends a lock at [Lease.Start] plus the TTL less
// this margin, and executors that watch leases of their own do the same.
func SafetyMargin(ttl time.Duration) time.Duration { return ttl / 50 }
