package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/lock4go/lock4go/executor"
)

// keyState is what inspect and watch report of one key on one backend. In
// JSON, backend_waiters is null when the backend cannot tell.
type keyState struct {
	Time    *time.Time `json:"time,omitempty"` // watch only
	Backend string     `json:"backend"`
	Address string     `json:"address"`
	Key     string     `json:"key"`
	Held    bool       `json:"held"`
	// Kind is "lock", "read" or "permits" while the key is held.
	Kind string `json:"kind,omitempty"`
	// Permits is a semaphore's n, when the backend stores it.
	Permits int `json:"permits,omitempty"`
	// Holders lists every holder, the first first.
	Holders []holderState `json:"holders,omitempty"`
	// BackendWaiters counts the waiters queued on the backend: processes
	// waiting for a lock (each process's goroutines wait in its local
	// queue, behind one), calls waiting for a read lock or permit.
	BackendWaiters *int   `json:"backend_waiters"`
	Error          string `json:"error,omitempty"`

	holder executor.Holder
	err    error
	dial   bool // err is the backend's: it could not be reached or used
}

// holderState is one holder of a key. In JSON, token is null when the
// backend does not keep it (Redis read locks and permits) and ttl_ms when
// it cannot tell (ZooKeeper: the lease is the holder's session).
type holderState struct {
	Owner string `json:"owner"`
	Token *int64 `json:"token"`
	TTLms *int64 `json:"ttl_ms"`
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
	s.Held, s.holder, s.Kind = true, h, h.Kind.String()
	if h.Kind == executor.KindPermits {
		s.Permits = h.Permits
	}
	for _, x := range h.Holders {
		hs := holderState{Owner: x.Owner}
		if x.Token != 0 {
			hs.Token = &x.Token
		}
		if x.TTL > 0 {
			ms := x.TTL.Milliseconds()
			hs.TTLms = &ms
		}
		s.Holders = append(s.Holders, hs)
	}
	if h.Waiters >= 0 {
		s.BackendWaiters = &h.Waiters
	}
	return s
}

// kind describes how the key is held: "lock", "read", "permits 4" (or
// "permits" when the backend does not store n).
func (s *keyState) kind() string {
	if s.Permits > 0 {
		return fmt.Sprintf("%s %d", s.Kind, s.Permits)
	}
	return s.Kind
}

// owner returns the owner value, or "-" when the holder stored none
// (etcdctl lock, zk.Lock).
func (h *holderState) owner() string {
	if h.Owner == "" {
		return "-"
	}
	return h.Owner
}

// token returns the fencing token, or "-" when the backend does not keep
// it.
func (h *holderState) token() string {
	if h.Token == nil {
		return "-"
	}
	return fmt.Sprint(*h.Token)
}

// ttl returns the lease left as text: "session" on ZooKeeper, where the
// lease is the holder's session.
func (h *holderState) ttl(backend string) string {
	switch {
	case h.TTLms != nil:
		return (time.Duration(*h.TTLms) * time.Millisecond).String()
	case backend == "zookeeper":
		return "session"
	}
	return "unknown"
}

// waiters returns the number of backend waiters as text.
func (s *keyState) waiters() string {
	if s.BackendWaiters == nil {
		return "unknown"
	}
	return fmt.Sprint(*s.BackendWaiters)
}

// line describes the state in one line, for watch and release.
func (s *keyState) line() string {
	switch {
	case s.err != nil:
		return fmt.Sprintf("%s: error: %v", s.Key, s.err)
	case !s.Held:
		return fmt.Sprintf("%s: not held", s.Key)
	}
	hs := make([]string, len(s.Holders))
	for i, h := range s.Holders {
		hs[i] = fmt.Sprintf("owner %s, token %s, lease left %s", h.owner(), h.token(), h.ttl(s.Backend))
	}
	what := "held by"
	if len(hs) > 1 || s.Kind != "lock" {
		what = fmt.Sprintf("held as %s by %d:", s.kind(), len(hs))
	}
	return fmt.Sprintf("%s: %s %s; backend waiters %s", s.Key, what, strings.Join(hs, "; "), s.waiters())
}

// sameHolder reports whether a and b show the same holders and waiters
// (the lease left is not compared: it changes all the time).
func sameHolder(a, b *keyState) bool {
	if a.Held != b.Held || a.Kind != b.Kind || a.waiters() != b.waiters() || a.Error != b.Error ||
		len(a.Holders) != len(b.Holders) {
		return false
	}
	for i := range a.Holders {
		if a.Holders[i].Owner != b.Holders[i].Owner || a.Holders[i].token() != b.Holders[i].token() {
			return false
		}
	}
	return true
}
