package lockspec

import (
	"context"
	"log/slog"
	"sync"
)

// Once logs each misconfiguration at Error, once per place (route pattern
// or gRPC method): loudly for the operator, without a record per request.
// The places are the server's routes or methods, a bounded set. The zero
// value is ready; it is safe for concurrent use.
type Once struct{ seen sync.Map }

// Log logs err for place at Error if it is the first time for place.
func (o *Once) Log(ctx context.Context, logger *slog.Logger, msg, placeKey, place string, err error) {
	if _, loaded := o.seen.LoadOrStore(place, struct{}{}); loaded {
		return
	}
	logger.LogAttrs(ctx, slog.LevelError, msg, slog.String(placeKey, place), slog.Any("error", err))
}
