package exectest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/testkey"
)

// LostReplies makes acquisitions of keys with a lease of ttl on e whose
// replies do not come within 300ms (the keys' rows are kept locked by the
// caller), so that e voids them in the background. An acquisition that
// returns a lease fails t.
func LostReplies(t *testing.T, e executor.Executor, keys []string, ttl time.Duration) {
	t.Helper()
	var wg sync.WaitGroup
	for _, k := range keys {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
			defer cancel()
			if l, err := e.Acquire(ctx, executor.Request{Key: k, Owner: testkey.Owner(), TTL: ttl}); err == nil {
				t.Errorf("Acquire of a locked row returned a lease (token %d)", l.Token())
			}
		})
	}
	wg.Wait()
}

// AllFree reports whether e can take each of keys (and releases them).
func AllFree(t *testing.T, e executor.Executor, keys []string) bool {
	for _, k := range keys {
		l, err := e.Acquire(t.Context(), executor.Request{Key: k, Owner: testkey.Owner(), TTL: time.Minute})
		if err != nil {
			return false
		}
		_ = l.Release(t.Context())
	}
	return true
}
