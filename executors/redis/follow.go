package redis

import (
	"context"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// followEvery is how often the hub of a Sentinel failover client checks,
// while the executor has waiters, that its subscription is on the current
// master.
const followEvery = 400 * time.Millisecond

// isFailover reports whether client is a Sentinel failover client, whose
// commands follow the master that Sentinel names but whose pub/sub
// connection does not: go-redis moves its command pools on +switch-master
// and leaves an open pub/sub connection where it is. After SENTINEL
// FAILOVER the old master lives on as a replica until Sentinel reconfigures
// it (about ten seconds), and releases published on the new master never
// reach a subscription there.
func isFailover(client goredis.UniversalClient) bool {
	c, ok := client.(*goredis.Client)
	return ok && c.Options().Addr == "FailoverClient"
}

// follow runs until the hub closes: while active reports waiters, it asks
// the current master (PUBSUB NUMSUB, through the command pool) whether a
// confirmed channel of the hub has a subscriber there; when none has, the
// subscription is elsewhere, and resubscribe moves it. A release on the new
// master then wakes waiters within followEvery plus a round trip of the
// switch.
func (h *hub) follow(active func() bool) {
	t := time.NewTicker(h.wire.followEvery)
	defer t.Stop()
	for {
		select {
		case <-h.done:
			return
		case <-t.C:
		case <-h.recheck:
		}
		ch, ok := h.confirmedChannel()
		if !ok || !active() {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), h.wire.followEvery)
		n, err := h.wire.numSub(ctx, ch)
		cancel()
		if err == nil && n == 0 {
			h.resubscribe()
		}
	}
}

// confirmedChannel returns a channel whose subscription the server
// confirmed.
func (h *hub) confirmedChannel() (string, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch, s := range h.subs {
		if s.confirmed {
			return ch, true
		}
	}
	return "", false
}

// resubscribe replaces the hub's PubSub by a new one, which the client
// dials to the current master, subscribes every channel there and closes
// the old one. The new confirmations report gaps, so every waiter is woken.
func (h *hub) resubscribe() {
	h.mu.Lock()
	if h.closed || h.ps == nil {
		h.mu.Unlock()
		return
	}
	old := h.ps
	h.ps = h.wire.open()
	ps := h.ps
	chans := make([]string, 0, len(h.subs))
	for ch, s := range h.subs {
		if s.sent {
			chans = append(chans, ch)
		}
	}
	h.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), hubOpTimeout)
	defer cancel()
	if err := h.wire.subscribe(ctx, ps, chans...); err != nil {
		h.log.Debug("redis: pub/sub SUBSCRIBE on the new server failed; retried with the next connection, waiters poll meanwhile", "err", err)
	}
	h.startReceive(ps)
	_ = old.Close()
	h.log.Debug("redis: the wake subscription was not where its server is (a Sentinel switch, a Cluster slot that moved or failed over); moved it", "channels", len(chans))
}
