package executor

import (
	"fmt"
	"time"
)

// Validate checks what every executor needs of a request: a key, an owner
// and a positive TTL. Its error wraps [ErrInvalidKey] or
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
	}
	return nil
}

// SafetyMargin is taken off the end of a lease of length ttl as measured
// by the local clock, for rate differences between the local clock and the
// backend's: the Template ends a lock at [Lease.Start] plus the TTL less
// this margin, and executors that watch leases of their own do the same.
func SafetyMargin(ttl time.Duration) time.Duration { return ttl / 50 }
