package bench

import (
	"context"
	"fmt"
	"sync"

	goredis "github.com/redis/go-redis/v9"
)

// fairFloorName is the subject of [FairFloor].
const fairFloorName = "fair queue floor"

// fairAcquire takes the key if it is free, or joins the tail of its queue:
// a Redis list of waiters by arrival. It returns 1 when taken, 0 when
// queued.
var fairAcquire = goredis.NewScript(`if redis.call("set", KEYS[1], ARGV[1], "NX", "PX", ARGV[2]) then return 1 end
redis.call("rpush", KEYS[2], ARGV[1])
return 0`)

// fairRelease hands the key, if it holds ARGV[1], to the head of its queue
// and wakes the head's process, or deletes it when nobody waits. With
// ARGV[3] = "leave" the waiter first leaves the queue (it gave up), and
// passes the key on if it was granted meanwhile.
var fairRelease = goredis.NewScript(`if ARGV[3] == "leave" then redis.call("lrem", KEYS[2], 1, ARGV[1]) end
if redis.call("get", KEYS[1]) ~= ARGV[1] then return 0 end
local head = redis.call("lpop", KEYS[2])
if head then
  redis.call("set", KEYS[1], head, "PX", ARGV[2])
  redis.call("publish", "fairfloor:wake:" .. string.match(head, "^[^:]+"), head)
else
  redis.call("del", KEYS[1])
end
return 1`)

// fairFloor is the least a fair lock across processes sends: a release
// hands the key to the longest waiter (direct grant, its name written as
// the key's value) and wakes it with one message to its process; the woken
// waiter holds the key at once. It has none of what makes lock4go's queue
// safe to run: no fencing token, no claim window (a waiter that stalls or
// dies holds the key for the whole lease), no repair of a lost wake, no
// expiry of the queue. It is a measure, not a lock to use.
type fairFloor struct {
	c       *goredis.Client
	proc    string
	ttl     string
	mu      sync.Mutex
	waiting map[string]chan struct{} // by member: closed by the wake
}

// FairFloor is [fairFloor] over c, one per process; ctx bounds the
// subscription to its wakes, which stays open until the subject closes.
func FairFloor(ctx context.Context, c *goredis.Client) (*Subject, error) {
	f := &fairFloor{c: c, proc: owner()[:12], ttl: fmt.Sprint(leaseTTL.Milliseconds()), waiting: map[string]chan struct{}{}}
	ps := c.Subscribe(ctx, "fairfloor:wake:"+f.proc)
	if _, err := ps.Receive(ctx); err != nil { // the subscription's confirmation
		return nil, fmt.Errorf("fair queue floor: subscribe: %w", err)
	}
	msgs := ps.Channel()
	go func() {
		for m := range msgs {
			f.mu.Lock()
			ch := f.waiting[m.Payload]
			delete(f.waiting, m.Payload)
			f.mu.Unlock()
			if ch != nil {
				close(ch)
			}
		}
	}()
	return &Subject{
		Name: fairFloorName, Backend: Redis, Kind: KindRaw, Waits: true,
		Note:      "RPUSH to a queue when busy; the release LPOPs the head, sets the key to it and PUBLISHes to its process",
		newLocker: shared(LockerFunc(f.lock)),
		close:     ps.Close,
	}, nil
}

// lock takes key, or queues and waits for the grant until ctx ends.
func (f *fairFloor) lock(ctx context.Context, key string) (Unlock, error) {
	member, keys := f.proc+":"+owner(), []string{key, key + ":q"}
	granted := make(chan struct{})
	f.mu.Lock()
	f.waiting[member] = granted
	f.mu.Unlock()
	forget := func() {
		f.mu.Lock()
		delete(f.waiting, member)
		f.mu.Unlock()
	}
	release := func(ctx context.Context) error {
		return fairRelease.Run(ctx, f.c, keys, member, f.ttl, "").Err()
	}
	n, err := fairAcquire.Run(ctx, f.c, keys, member, f.ttl).Int()
	switch {
	case err != nil:
		forget()
		return nil, err
	case n == 1:
		forget()
		return release, nil
	}
	select {
	case <-granted:
		return release, nil
	case <-ctx.Done():
		forget()
		_ = fairRelease.Run(context.WithoutCancel(ctx), f.c, keys, member, f.ttl, "leave").Err()
		return nil, ctx.Err()
	}
}
