package redis

import (
	"context"
	"log/slog"
	"sync"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// hubOpTimeout bounds one SUBSCRIBE or UNSUBSCRIBE call of the hub.
const hubOpTimeout = 5 * time.Second

// hub multiplexes release watchers over one go-redis PubSub connection,
// started at the first watch. Subscriptions are reference-counted per
// channel: SUBSCRIBE when a channel gets its first watcher, UNSUBSCRIBE when
// its last one stops. Only the hub's own goroutine talks to the network, so
// watch and stop never block on it. go-redis reconnects the PubSub after an
// error and re-subscribes every channel; the hub wakes a channel's watchers
// when such a re-subscription is confirmed, since releases may have been
// missed meanwhile.
type hub struct {
	client      goredis.UniversalClient
	log         *slog.Logger
	confirmWait time.Duration

	mu       sync.Mutex
	ps       *goredis.PubSub // nil until the first watch
	subs     map[string]*subscription
	pending  map[string]struct{} // channels whose watcher count crossed zero
	degraded bool                // a confirmation is overdue: do not wait for more
	closed   bool
	kick     chan struct{} // cap 1: pending has work
	done     chan struct{} // closed by close
	wg       sync.WaitGroup
}

// subscription is one channel's state.
type subscription struct {
	watchers  map[*watcher]struct{}
	sent      bool          // SUBSCRIBE handed to go-redis
	confirmed bool          // the server confirmed it at least once
	ready     chan struct{} // closed at the first confirmation
	late      bool          // a watcher stopped waiting for the confirmation
}

// watcher is one WatchRelease call.
type watcher struct {
	ch chan struct{} // cap 1, sent to without blocking
}

func newHub(client goredis.UniversalClient, log *slog.Logger, confirmWait time.Duration) *hub {
	return &hub{
		client:      client,
		log:         log,
		confirmWait: confirmWait,
		subs:        make(map[string]*subscription),
		pending:     make(map[string]struct{}),
		kick:        make(chan struct{}, 1),
		done:        make(chan struct{}),
	}
}

// watch registers a watcher of channel and waits (bounded by ctx and
// confirmWait, and not at all while pub/sub is known to lag) until the
// server has confirmed the subscription. It returns a nil channel once the
// hub is closed.
func (h *hub) watch(ctx context.Context, channel string) (<-chan struct{}, func()) {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil, func() {}
	}
	h.startLocked()
	s := h.subs[channel]
	if s == nil {
		s = &subscription{watchers: make(map[*watcher]struct{}, 1), ready: make(chan struct{})}
		h.subs[channel] = s
	}
	if len(s.watchers) == 0 {
		h.markLocked(channel)
	}
	w := &watcher{ch: make(chan struct{}, 1)}
	s.watchers[w] = struct{}{}
	wait := !s.confirmed && !h.degraded
	if !s.confirmed && h.degraded {
		s.late = true // wake w when the confirmation finally comes
	}
	h.mu.Unlock()

	var once sync.Once
	stop := func() { once.Do(func() { h.unwatch(channel, s, w) }) }
	if wait {
		h.awaitConfirmation(ctx, s)
	}
	return w.ch, stop
}

// awaitConfirmation waits until s is confirmed, ctx ends, the hub closes or
// confirmWait passes; in the last case the hub stops waiting for
// confirmations until one arrives, and s's watchers are woken when its
// confirmation comes (a release may have slipped in between).
func (h *hub) awaitConfirmation(ctx context.Context, s *subscription) {
	t := time.NewTimer(h.confirmWait)
	defer t.Stop()
	select {
	case <-s.ready:
	case <-ctx.Done():
	case <-h.done:
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

// unwatch removes w from s; the last watcher out schedules an UNSUBSCRIBE.
func (h *hub) unwatch(channel string, s *subscription, w *watcher) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := s.watchers[w]; !ok {
		return
	}
	delete(s.watchers, w)
	if len(s.watchers) == 0 && h.subs[channel] == s {
		h.markLocked(channel)
	}
}

// markLocked queues channel for the hub goroutine.
func (h *hub) markLocked(channel string) {
	h.pending[channel] = struct{}{}
	select {
	case h.kick <- struct{}{}:
	default:
	}
}

// startLocked creates the PubSub and the hub's goroutines on first use. The
// PubSub connects in the background; go-redis retries until it succeeds.
func (h *hub) startLocked() {
	if h.ps != nil {
		return
	}
	h.ps = h.client.Subscribe(context.Background())
	msgs := h.ps.ChannelWithSubscriptions()
	h.wg.Add(2)
	go func() {
		defer h.wg.Done()
		h.receive(msgs)
	}()
	go func() {
		defer h.wg.Done()
		h.manage()
	}()
}

// manage sends SUBSCRIBE and UNSUBSCRIBE commands for the pending channels.
// A channel whose count went to zero and back is left alone. go-redis
// records a channel as subscribed even when the command fails, and
// subscribes it again with its next connection.
func (h *hub) manage() {
	for {
		select {
		case <-h.kick:
		case <-h.done:
			return
		}
		var sub, unsub []string
		h.mu.Lock()
		for ch := range h.pending {
			s := h.subs[ch]
			switch {
			case s == nil:
			case len(s.watchers) > 0 && !s.sent:
				s.sent = true
				sub = append(sub, ch)
			case len(s.watchers) == 0:
				delete(h.subs, ch)
				if s.sent {
					unsub = append(unsub, ch)
				}
			}
		}
		clear(h.pending)
		ps := h.ps
		h.mu.Unlock()

		ctx, cancel := context.WithTimeout(context.Background(), hubOpTimeout)
		if len(unsub) > 0 {
			if err := ps.Unsubscribe(ctx, unsub...); err != nil {
				h.log.Debug("redis: pub/sub UNSUBSCRIBE failed; the connection is renewed", "err", err)
			}
		}
		if len(sub) > 0 {
			if err := ps.Subscribe(ctx, sub...); err != nil {
				h.mu.Lock()
				h.degraded = true
				h.mu.Unlock()
				h.log.Debug("redis: pub/sub SUBSCRIBE failed; retried with the next connection, waiters poll meanwhile", "err", err)
			}
		}
		cancel()
	}
}

// receive dispatches what the PubSub delivers until it is closed.
func (h *hub) receive(msgs <-chan any) {
	for m := range msgs {
		switch m := m.(type) {
		case *goredis.Subscription:
			if m.Kind == "subscribe" {
				h.confirm(m.Channel)
			}
		case *goredis.Message:
			h.mu.Lock()
			if s := h.subs[m.Channel]; s != nil {
				s.notifyLocked()
			}
			h.mu.Unlock()
		}
	}
}

// confirm records the server's confirmation of a subscription. The first one
// releases the watchers waiting in watch; a later one follows a reconnect,
// after which releases may have been missed, so it wakes every watcher.
func (h *hub) confirm(channel string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.degraded = false
	s := h.subs[channel]
	if s == nil || !s.sent {
		return
	}
	if !s.confirmed {
		s.confirmed = true
		close(s.ready)
		if !s.late {
			return
		}
	}
	s.notifyLocked()
}

// notifyLocked wakes every watcher of s without blocking.
func (s *subscription) notifyLocked() {
	for w := range s.watchers {
		select {
		case w.ch <- struct{}{}:
		default:
		}
	}
}

// close stops the hub: no more watches, the PubSub closed, its goroutines
// ended. Watchers keep channels that never fire.
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

// WatchRelease implements [executor.Waiter]: the returned channel receives a
// value after a release of key announced by this package's release script
// (or a void). All watches of an executor share one pub/sub
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
