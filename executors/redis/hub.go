package redis

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// hubOpTimeout bounds one SUBSCRIBE or UNSUBSCRIBE call of the hub.
const hubOpTimeout = 5 * time.Second

// hub keeps the executor's one pub/sub connection, opened at the first
// wait: the executor's wake channel, subscribed for good (see listen).
// Only the hub's own goroutine talks to the network, so listen never
// blocks on it. go-redis reconnects the PubSub after an error and
// re-subscribes every channel; the hub calls the listener's onGap when such
// a re-subscription is confirmed, since messages may have been missed
// meanwhile.
type hub struct {
	wire        pubsubWire
	log         *slog.Logger
	confirmWait time.Duration
	// active, when the wire follows its server (a Sentinel failover
	// client, a Cluster slot), reports whether the hub has waiters: it
	// then checks that its subscription is on the right server (see
	// follow). Nil otherwise.
	active  func() bool
	recheck chan struct{} // cap 1: the server dropped a subscription
	// epoch counts the server's confirmations of subscriptions (first ones
	// and re-subscriptions); 0 until the first. An attempt that registered
	// a waiter while it was 0, or that saw it change, cannot count on its
	// wake (see Executor.outcome).
	epoch atomic.Uint64

	mu        sync.Mutex
	ps        *goredis.PubSub // nil until the first listen
	receiving *goredis.PubSub // the PubSub whose messages receive reads
	subs      map[string]*subscription
	pending   map[string]struct{} // channels to subscribe
	degraded  bool                // a confirmation is overdue: do not wait for more
	closed    bool
	kick      chan struct{} // cap 1: pending has work
	done      chan struct{} // closed by close
	wg        sync.WaitGroup
}

// subscription is one channel's state.
type subscription struct {
	onMsg     func(payload string) // a message arrived
	onGap     func()               // messages may have been missed
	sent      bool                 // SUBSCRIBE handed to go-redis
	confirmed bool                 // the server confirmed it at least once
	ready     chan struct{}        // closed at the first confirmation
	late      bool                 // a caller stopped waiting for the confirmation
}

// newHub returns a hub that talks pub/sub over w; active reports whether
// it has waiters (used when w follows its server).
func newHub(w pubsubWire, log *slog.Logger, confirmWait time.Duration, active func() bool) *hub {
	h := &hub{
		wire:        w,
		recheck:     make(chan struct{}, 1),
		log:         log,
		confirmWait: confirmWait,
		subs:        make(map[string]*subscription),
		pending:     make(map[string]struct{}),
		kick:        make(chan struct{}, 1),
		done:        make(chan struct{}),
	}
	if w.followEvery > 0 {
		h.active = active
	}
	return h
}

// listen subscribes to channel until the hub closes: onMsg receives each
// message's payload, onGap runs when messages may have been missed (a
// re-subscription after a reconnect, or a first confirmation that a
// caller of ready stopped waiting for). Both run in the hub's goroutine and
// must not block. It reports false, and does nothing, once the hub is
// closed or when channel is already listened to.
func (h *hub) listen(channel string, onMsg func(string), onGap func()) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed || h.subs[channel] != nil {
		return false
	}
	h.startLocked()
	h.subs[channel] = &subscription{onMsg: onMsg, onGap: onGap, ready: make(chan struct{})}
	h.pending[channel] = struct{}{}
	select {
	case h.kick <- struct{}{}:
	default:
	}
	return true
}

// ready waits until the server has confirmed the subscription of channel,
// bounded by ctx and confirmWait, and not at all while pub/sub is known to
// lag or once the hub is closed.
func (h *hub) ready(ctx context.Context, channel string) {
	h.mu.Lock()
	s := h.subs[channel]
	if s == nil || s.confirmed {
		h.mu.Unlock()
		return
	}
	if h.degraded {
		s.late = true // report a gap when the confirmation finally comes
		h.mu.Unlock()
		return
	}
	h.mu.Unlock()
	h.awaitConfirmation(ctx, s)
}

// awaitConfirmation waits until s is confirmed, ctx ends, the hub closes or
// confirmWait passes; in the last case the hub stops waiting for
// confirmations until one arrives. Unless the confirmation came, s reports
// a gap when it does come (a message may have slipped in between).
func (h *hub) awaitConfirmation(ctx context.Context, s *subscription) {
	t := time.NewTimer(h.confirmWait)
	defer t.Stop()
	select {
	case <-s.ready:
	case <-h.done:
	case <-ctx.Done():
		h.mu.Lock()
		s.late = s.late || !s.confirmed
		h.mu.Unlock()
	case <-t.C:
		h.mu.Lock()
		if !s.confirmed {
			s.late = true
			h.degraded = true
		}
		h.mu.Unlock()
		h.log.Debug("redis: pub/sub subscription not confirmed in time; waiters fall back to polling", "timeout", h.confirmWait)
	}
}

// healthy reports whether the hub's subscription is confirmed and no
// confirmation is overdue: wakes then arrive.
func (h *hub) healthy() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.degraded || h.closed {
		return false
	}
	for _, s := range h.subs {
		if !s.confirmed || s.late {
			return false
		}
	}
	return len(h.subs) > 0
}

// startLocked creates the PubSub and the hub's goroutines on first use. The
// PubSub connects in the background; go-redis retries until it succeeds.
func (h *hub) startLocked() {
	if h.ps != nil {
		return
	}
	h.ps = h.wire.open()
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		h.manage()
	}()
	if h.active != nil {
		h.wg.Add(1)
		go func() {
			defer h.wg.Done()
			h.follow(h.active)
		}()
	}
}

// manage sends SUBSCRIBE commands for the pending channels. go-redis
// records a channel as subscribed even when the command fails, and
// subscribes it again with its next connection.
func (h *hub) manage() {
	for {
		select {
		case <-h.kick:
		case <-h.done:
			return
		}
		var sub []string
		h.mu.Lock()
		for ch := range h.pending {
			if s := h.subs[ch]; s != nil && !s.sent {
				s.sent = true
				sub = append(sub, ch)
			}
		}
		clear(h.pending)
		ps := h.ps
		h.mu.Unlock()
		if len(sub) == 0 {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), hubOpTimeout)
		if err := h.wire.subscribe(ctx, ps, sub...); err != nil {
			h.mu.Lock()
			h.degraded = true
			h.mu.Unlock()
			h.log.Debug("redis: pub/sub SUBSCRIBE failed; retried with the next connection, waiters poll meanwhile", "err", err)
		}
		cancel()
		h.startReceive(ps)
	}
}

// startReceive starts receiving what ps delivers, once, unless the hub
// closed or replaced ps meanwhile. It runs after ps's first subscription:
// a PubSub connects at its first use, and a sharded one must connect to
// its channel's slot, which a receive before any subscription would not
// know.
func (h *hub) startReceive(ps *goredis.PubSub) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed || h.ps != ps || h.receiving == ps {
		return
	}
	h.receiving = ps
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		h.receive(ps)
	}()
}

// Health of a hub's connection: after pingAfter without a message the hub
// pings the server (bounded by pingTimeout); a failed ping makes go-redis
// reconnect and subscribe again, and the confirmation reports a gap.
const (
	pingAfter   = 3 * time.Second
	pingTimeout = 5 * time.Second
)

// receive reads what ps delivers, in the hub's goroutine, and dispatches
// it until ps is closed. It reads the connection itself rather than
// through go-redis's message channel, which would put one more goroutine
// between a wake and its waiter. A read that fails (the connection broke)
// is retried after a pause; go-redis reconnects and subscribes again.
func (h *hub) receive(ps *goredis.PubSub) {
	ctx := context.Background()
	pause := time.Duration(0)
	for {
		m, err := ps.ReceiveTimeout(ctx, pingAfter)
		switch {
		case err == nil:
			pause = 0
			h.dispatch(m)
			continue
		case errors.Is(err, goredis.ErrClosed):
			return
		case isTimeout(err):
			pctx, cancel := context.WithTimeout(ctx, pingTimeout)
			_ = ps.Ping(pctx)
			cancel()
			continue
		}
		pause = min(max(2*pause, 50*time.Millisecond), time.Second)
		select {
		case <-h.done:
			return
		case <-time.After(pause):
		}
	}
}

// isTimeout reports whether err is a read that timed out.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// dispatch handles one thing the server sent on the hub's connection.
func (h *hub) dispatch(m any) {
	switch m := m.(type) {
	case *goredis.Subscription:
		switch m.Kind {
		case h.wire.confirmed:
			h.confirm(m.Channel)
		case h.wire.dropped:
			// The server dropped it (its slot moved): follow checks at
			// once and subscribes where the slot is now.
			select {
			case h.recheck <- struct{}{}:
			default:
			}
		}
	case *goredis.Message:
		h.mu.Lock()
		s := h.subs[m.Channel]
		h.mu.Unlock()
		if s != nil {
			s.onMsg(m.Payload)
		}
	}
}

// confirm records the server's confirmation of a subscription. The first one
// releases the callers waiting in ready; a later one follows a reconnect,
// after which messages may have been missed, so it reports a gap.
func (h *hub) confirm(channel string) {
	h.mu.Lock()
	h.degraded = false
	s := h.subs[channel]
	if s == nil || !s.sent {
		h.mu.Unlock()
		return
	}
	gap := s.confirmed || s.late
	// The epoch moves before ready is closed: a caller that ready released
	// and whose attempt then reads the epoch must see it confirmed (an
	// attempt that reads 0 takes its wake as possibly missed and wakes its
	// key's waiters itself).
	h.epoch.Add(1)
	if !s.confirmed {
		s.confirmed = true
		close(s.ready)
	}
	h.mu.Unlock()
	if gap {
		s.onGap()
	}
}

// close stops the hub: no more listening, the PubSub closed, its goroutines
// ended.
func (h *hub) close() error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil
	}
	h.closed = true
	close(h.done)
	ps := h.ps
	h.mu.Unlock()
	var err error
	if ps != nil {
		err = ps.Close()
	}
	h.wg.Wait()
	return err
}

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
