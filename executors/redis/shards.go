package redis

import (
	"errors"
	"log/slog"
	"sync"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// shardIdle is how long the subscription of a slot outlives its last
// waiter: waiters of one key come and go, and re-subscribing costs a
// round trip and a connection.
const shardIdle = 30 * time.Second

// shardHubs keeps an executor's wake subscriptions on a Redis Cluster: the
// sharded channel "{<slot tag>}lock4go:wake:<member>" of each slot with
// waiters, each on a hub of its own (one connection to the slot's master),
// closed after shardIdle without waiters. A release SPUBLISHes in the key's
// slot, so a wake reaches only that shard. It is safe for concurrent use.
type shardHubs struct {
	cluster     *goredis.ClusterClient
	log         *slog.Logger
	confirmWait time.Duration
	member      string

	mu     sync.Mutex
	slots  map[int]*slotSub
	closed bool
}

// slotSub is the subscription of one slot.
type slotSub struct {
	h        *hub
	channel  string
	watchers int         // WatchRelease calls of keys of the slot, under shardHubs.mu
	idle     *time.Timer // closes the hub once watchers stayed 0 for shardIdle
}

// newShardHubs returns the sharded subscriptions of the executor whose
// member is member.
func newShardHubs(cluster *goredis.ClusterClient, log *slog.Logger, confirmWait time.Duration, member string) *shardHubs {
	return &shardHubs{cluster: cluster, log: log, confirmWait: confirmWait, member: member, slots: map[int]*slotSub{}}
}

// shardChannelPrefix returns the prefix of the sharded wake channels of
// key's slot: "{<slot tag>}lock4go:wake:".
func shardChannelPrefix(key string) string {
	tag := slotTag(keySlot(key))
	return "{" + string(tag[:]) + "}" + wakeChannelPrefix
}

// watch returns the hub and channel of key's slot, counting one more
// watcher until release is called (once). After close it returns nil.
func (s *shardHubs) watch(key string) (h *hub, channel string, release func()) {
	slot := keySlot(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, "", func() {}
	}
	sub := s.slots[slot]
	if sub == nil {
		sub = &slotSub{channel: shardChannelPrefix(key) + s.member}
		sub.h = newHub(shardedWire(s.cluster), s.log, s.confirmWait, func() bool {
			s.mu.Lock()
			defer s.mu.Unlock()
			return sub.watchers > 0
		})
		s.slots[slot] = sub
	}
	sub.watchers++
	if sub.idle != nil {
		sub.idle.Stop()
		sub.idle = nil
	}
	return sub.h, sub.channel, func() { s.unwatch(slot, sub) }
}

// unwatch counts a watcher of sub less, and closes its hub after
// shardIdle without watchers.
func (s *shardHubs) unwatch(slot int, sub *slotSub) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sub.watchers--
	if sub.watchers > 0 || s.closed {
		return
	}
	sub.idle = time.AfterFunc(shardIdle, func() {
		s.mu.Lock()
		idle := sub.watchers == 0 && s.slots[slot] == sub && !s.closed
		if idle {
			delete(s.slots, slot)
		}
		s.mu.Unlock()
		if idle {
			_ = sub.h.close()
		}
	})
}

// healthy reports whether the subscription of key's slot is confirmed and
// no confirmation is overdue.
func (s *shardHubs) healthy(key string) bool {
	s.mu.Lock()
	sub := s.slots[keySlot(key)]
	s.mu.Unlock()
	return sub != nil && sub.h.healthy()
}

// epoch returns the confirmation epoch of the hub of key's slot (see
// hub.epoch), 0 when the slot has none.
func (s *shardHubs) epoch(key string) uint64 {
	s.mu.Lock()
	sub := s.slots[keySlot(key)]
	s.mu.Unlock()
	if sub == nil {
		return 0
	}
	return sub.h.epoch.Load()
}

// close closes every slot's hub.
func (s *shardHubs) close() error {
	s.mu.Lock()
	s.closed = true
	subs := s.slots
	s.slots = map[int]*slotSub{}
	s.mu.Unlock()
	var err error
	for _, sub := range subs {
		if sub.idle != nil {
			sub.idle.Stop()
		}
		err = errors.Join(err, sub.h.close())
	}
	return err
}
