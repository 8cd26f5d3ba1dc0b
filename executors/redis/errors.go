package redis

import (
	"context"
	"errors"
	"fmt"

	"github.com/lock4go/lock4go/executor"
)

// Internal causes, wrapped beside the executor sentinels.
var (
	// errNoCounter: an acquisition retried by go-redis whose fencing counter
	// vanished meanwhile; no token can be trusted.
	errNoCounter = errors.New("redis: fencing counter missing")

	// errVoided: the owner's acquisitions were voided by the compensation of
	// an earlier attempt with the same owner; nothing was written.
	errVoided = errors.New("redis: owner voided by the compensation of a lost reply")
)

// acquireErr reports an acquire round trip of key that failed with err, or
// that the caller abandoned (err is then ctx's error), as
// [executor.AttemptError] classifies it.
func acquireErr(ctx context.Context, key string, err error) error {
	return fmt.Errorf("redis: acquire %q: %w", key, executor.AttemptError(ctx, err))
}
