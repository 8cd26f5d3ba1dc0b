package queued

import (
	"cmp"
	"fmt"
	"time"

	"github.com/lock4go/lock4go/executor"
)

// Defaults of the durations every queued executor's Options have.
const (
	DefaultClaimWindow      = 200 * time.Millisecond
	DefaultSubscribeTimeout = 250 * time.Millisecond
	DefaultCleanupTimeout   = 2 * time.Second
)

// Timing holds the durations every queued executor's Options have, which
// mean the same on each: how long a released key stays granted to the head
// of its queue, how long the first watch waits for the wake-up channel,
// and how long a clean-up round trip (and Close) may take.
type Timing struct {
	ClaimWindow      time.Duration // zero means DefaultClaimWindow
	SubscribeTimeout time.Duration // zero means DefaultSubscribeTimeout
	CleanupTimeout   time.Duration // zero means DefaultCleanupTimeout
}

// Check returns t with its zero fields set to their defaults. When any of
// t's durations or of more (the executor's own) is negative it returns an
// error wrapping [executor.ErrInvalidConfig], starting with prefix.
func (t Timing) Check(prefix string, more ...executor.Duration) (Timing, error) {
	err := executor.NonNegative(append([]executor.Duration{
		{Name: "ClaimWindow", Value: t.ClaimWindow},
		{Name: "SubscribeTimeout", Value: t.SubscribeTimeout},
		{Name: "CleanupTimeout", Value: t.CleanupTimeout},
	}, more...)...)
	if err != nil {
		return t, fmt.Errorf("%s: %w", prefix, err)
	}
	t.ClaimWindow = cmp.Or(t.ClaimWindow, DefaultClaimWindow)
	t.SubscribeTimeout = cmp.Or(t.SubscribeTimeout, DefaultSubscribeTimeout)
	t.CleanupTimeout = cmp.Or(t.CleanupTimeout, DefaultCleanupTimeout)
	return t, nil
}
