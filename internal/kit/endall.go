package kit

import (
	"context"
	"errors"
	"sync"
	"time"
)

// maxEnders bounds the goroutines of one EndAll.
const maxEnders = 16

// EndAll runs end on every item of items, a few at a time, all under one
// context that ends after timeout, and returns their errors joined: Close
// releases the leases it ends as a whole within its bound, however many
// there are. Items not reached when the context ends are still passed to
// end, with that ended context, so that each is accounted for.
func EndAll[T any](timeout time.Duration, items []T, end func(ctx context.Context, item T) error) error {
	if len(items) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	errs := make([]error, len(items))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(len(items), maxEnders) {
		wg.Go(func() {
			for i := range next {
				errs[i] = end(ctx, items[i])
			}
		})
	}
	for i := range items {
		next <- i
	}
	close(next)
	wg.Wait()
	return errors.Join(errs...)
}
