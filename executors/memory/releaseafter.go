package memory

import (
	"context"
	"time"

	"github.com/lock4go/lock4go/executor"
)

var _ executor.DeferredReleaser = (*lease)(nil)

// ReleaseAfter implements [executor.DeferredReleaser]: the lease's expiry
// moves to d from now, as by Renew; the key is free when it passes.
func (l *lease) ReleaseAfter(ctx context.Context, d time.Duration) error {
	return l.Renew(ctx, d)
}
