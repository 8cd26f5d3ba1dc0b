package redis

import (
	"context"
	"time"

	"github.com/lock4go/lock4go/executor"
)

var _ executor.DeferredReleaser = (*lease)(nil)

// ReleaseAfter implements [executor.DeferredReleaser]: the renew script
// sets the key's TTL to d (PEXPIRE, counted by the server from when the
// script runs) if the key still holds this owner, and the executor forgets
// the lease. No waiter is woken: the key expires by itself.
func (l *lease) ReleaseAfter(ctx context.Context, d time.Duration) error {
	return l.e.core.Deferred(l, l.Renew(ctx, d))
}
