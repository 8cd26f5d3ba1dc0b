package postgres

import (
	"context"
	"time"

	"github.com/lock4go/lock4go/executor"
)

var _ executor.DeferredReleaser = (*lease)(nil)

// ReleaseAfter implements [executor.DeferredReleaser]: the renew statement
// sets the row's expires_at to the server's clock_timestamp() plus d if
// the row still holds this owner, and the executor forgets the lease. No
// waiter is woken: the row's lease expires by itself.
func (l *lease) ReleaseAfter(ctx context.Context, d time.Duration) error {
	err := l.Renew(ctx, d)
	if err == nil {
		l.e.core.Forget(l)
	}
	return err
}
