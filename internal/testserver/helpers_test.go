package testserver

import (
	"context"
	"testing"
	"time"
)

// contextWithTimeout derives a ctx from the test's ctx.
func contextWithTimeout(t *testing.T, d time.Duration) (context.Context, context.CancelFunc) {
	t.Helper()
	return context.WithTimeout(t.Context(), d)
}
