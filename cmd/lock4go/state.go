package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lock4go/lock4go/executor"
)

// keyState is what inspect and watch report of one key on one backend. In
// JSON, ttl_ms and waiters are null when the backend cannot tell.
type keyState struct {
	Time    *time.Time `json:"time,omitempty"` // watch only
	Backend string     `json:"backend"`
	Address string     `json:"address"`
	Key     string     `json:"key"`
	Held    bool       `json:"held"`
	Owner   string     `json:"owner,omitempty"`
	Token   int64      `json:"token,omitempty"`
	TTLms   *int64     `json:"ttl_ms"`
	Waiters *int       `json:"waiters"`
	Error   string     `json:"error,omitempty"`

	holder executor.Holder
	err    error
}

// inspectKey asks b who holds key, within --timeout.
func inspectKey(ctx context.Context, c *connFlags, b *backend, key string) keyState {
	s := keyState{Backend: b.kind, Address: b.addr, Key: key}
	ctx, cancel := c.call(ctx)
	defer cancel()
	h, err := b.exec.Inspect(ctx, key)
	switch {
	case errors.Is(err, executor.ErrLockNotHeld):
		return s
	case err != nil:
		s.err, s.Error = err, err.Error()
		return s
	}
	s.Held, s.Owner, s.Token, s.holder = true, h.Owner, h.Token, h
	if h.TTL > 0 {
		ms := h.TTL.Milliseconds()
		s.TTLms = &ms
	}
	if h.Waiters >= 0 {
		s.Waiters = &h.Waiters
	}
	return s
}

// state is a short word for the key's state.
func (s *keyState) state() string {
	switch {
	case s.err != nil:
		return "error"
	case s.Held:
		return "held"
	}
	return "not held"
}

// owner returns the owner value, or "-" when the holder stored none
// (etcdctl lock, zk.Lock).
func (s *keyState) owner() string {
	if s.Owner == "" {
		return "-"
	}
	return s.Owner
}

// ttl returns the lease left as text: "session" on ZooKeeper, where the
// lease is the holder's session.
func (s *keyState) ttl() string {
	switch {
	case s.TTLms != nil:
		return (time.Duration(*s.TTLms) * time.Millisecond).String()
	case s.Backend == "zookeeper":
		return "session"
	}
	return "unknown"
}

// waiters returns the number of waiters as text.
func (s *keyState) waiters() string {
	if s.Waiters == nil {
		return "unknown"
	}
	return fmt.Sprint(*s.Waiters)
}

// line describes the state in one line, for watch and release.
func (s *keyState) line() string {
	switch {
	case s.err != nil:
		return fmt.Sprintf("%s: error: %v", s.Key, s.err)
	case !s.Held:
		return fmt.Sprintf("%s: not held", s.Key)
	}
	return fmt.Sprintf("%s: held by owner %s, token %d, lease left %s, waiters %s",
		s.Key, s.owner(), s.Token, s.ttl(), s.waiters())
}

// sameHolder reports whether a and b show the same holder and waiters (the
// lease left is not compared: it changes all the time).
func sameHolder(a, b *keyState) bool {
	return a.Held == b.Held && a.Owner == b.Owner && a.Token == b.Token &&
		a.waiters() == b.waiters() && a.Error == b.Error
}
