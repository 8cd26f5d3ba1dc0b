package redis

import "context"

// WatchRelease implements [executor.Waiter]: the returned channel receives a
// value after a release of key announced by this package's release script
// (or a compensation). All watches of an executor share one pub/sub
// connection; the first watch of a key subscribes to the key's channel and
// waits for the server's confirmation, bounded by ctx and
// [Options.SubscribeTimeout], so a release right after WatchRelease returns
// is not missed. Watches never block on a pub/sub that is down: the channel
// may then never fire, and the Template polls at its retry interval.
//
// Releases made by other programs (Lock4j's own compare-and-delete) and
// expiries are not announced; waiters notice them by polling. stop must be
// called exactly once (later calls do nothing); it never blocks on the
// network.
func (e *Executor) WatchRelease(ctx context.Context, key string) (released <-chan struct{}, stop func()) {
	return e.hub.watch(ctx, channelName(key))
}
