package redis

import (
	"context"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// pubsubWire is how a hub talks pub/sub: classic channels (SUBSCRIBE; the
// scripts PUBLISH, which Redis Cluster broadcasts to every node) or the
// sharded channels of one Redis Cluster slot (SSUBSCRIBE on the slot's
// master; the scripts SPUBLISH, which stays on the slot's shard).
type pubsubWire struct {
	// open returns a new PubSub; it connects at its first subscription.
	open func() *goredis.PubSub
	// subscribe subscribes ps to channels.
	subscribe func(ctx context.Context, ps *goredis.PubSub, channels ...string) error
	// confirmed is the kind of the server's confirmation of a
	// subscription; dropped, of its own unsubscription (a slot that moved
	// to another shard), "" when the server never drops one.
	confirmed, dropped string
	// numSub asks the server that should hold a subscription of channel
	// (the current master, or the slot's) how many subscribers it has.
	numSub func(ctx context.Context, channel string) (int64, error)
	// followEvery is how often, while the hub has waiters, it checks that
	// its subscription is where numSub asks (0: never).
	followEvery time.Duration
}

// classicWire is the pub/sub of client's classic channels. A Sentinel
// failover client's hub checks that it listens on the current master (see
// follow).
func classicWire(client goredis.UniversalClient) pubsubWire {
	w := pubsubWire{
		open: func() *goredis.PubSub { return client.Subscribe(context.Background()) },
		subscribe: func(ctx context.Context, ps *goredis.PubSub, channels ...string) error {
			return ps.Subscribe(ctx, channels...)
		},
		confirmed: "subscribe",
		numSub: func(ctx context.Context, channel string) (int64, error) {
			n, err := client.PubSubNumSub(ctx, channel).Result()
			return n[channel], err
		},
	}
	if isFailover(client) {
		w.followEvery = followEvery
	}
	return w
}

// shardFollowEvery is how often the hub of a sharded channel checks, while
// it has waiters, that its subscription is on the master of its slot.
const shardFollowEvery = time.Second

// shardedWire is the pub/sub of sharded channels on a Redis Cluster: a hub
// holds the channel of one slot (Redis refuses an SSUBSCRIBE of channels of
// several slots, and go-redis subscribes them all at once after a
// reconnect). A slot that moves makes its old master drop the
// subscription ("sunsubscribe"), and a failover breaks the connection: the
// hub subscribes again where the client's slot map points (see follow).
func shardedWire(cluster *goredis.ClusterClient) pubsubWire {
	return pubsubWire{
		open: func() *goredis.PubSub { return cluster.SSubscribe(context.Background()) },
		subscribe: func(ctx context.Context, ps *goredis.PubSub, channels ...string) error {
			return ps.SSubscribe(ctx, channels...)
		},
		confirmed: "ssubscribe",
		dropped:   "sunsubscribe",
		numSub: func(ctx context.Context, channel string) (int64, error) {
			node, err := cluster.MasterForKey(ctx, channel)
			if err != nil {
				cluster.ReloadState(ctx)
				return 0, err
			}
			n, err := node.PubSubShardNumSub(ctx, channel).Result()
			if err != nil || n[channel] == 0 {
				// The slot map may be stale (a slot moved, its master
				// died): have it read again, so that the next check and
				// the subscription go to the slot's master.
				cluster.ReloadState(ctx)
			}
			return n[channel], err
		},
		followEvery: shardFollowEvery,
	}
}
