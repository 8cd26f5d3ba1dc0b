package executor

import (
	"context"
	"fmt"
	"time"
)

// Kind says how a key is held: by a lock, by read locks or by permits.
type Kind uint8

// The kinds of hold, as [Holder.Kind] reports them.
const (
	// KindLock is a mutex, or the write lock of a key: one holder.
	KindLock Kind = iota
	// KindRead is read locks ([Request.Shared]): any number of holders.
	KindRead
	// KindPermits is permits of a semaphore ([Request.Permits]): at most
	// n holders.
	KindPermits
)

// String returns "lock", "read" or "permits".
func (k Kind) String() string {
	switch k {
	case KindLock:
		return "lock"
	case KindRead:
		return "read"
	case KindPermits:
		return "permits"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Holder describes who holds a key, as far as the backend can tell.
// Owner, Token and TTL describe the first holder; Holders lists them all.
type Holder struct {
	// Owner is the first holder's owner value ("" when the backend cannot
	// tell).
	Owner string
	// Token is the first holder's fencing token (0 when unknown).
	Token int64
	// TTL is the first holder's remaining lease (0 when unknown).
	TTL time.Duration
	// Kind says whether the key is held by a lock, by read locks or by
	// permits.
	Kind Kind
	// Permits is the semaphore's number of permits n when Kind is
	// [KindPermits] and the backend stores it (0 otherwise).
	Permits int
	// Holders lists every holder, the first one first (the oldest where
	// the backend can tell): one for a lock, one per read lock or permit
	// held. Its elements set Owner, Token and TTL only.
	Holders []Holder
	// Waiters is the number of waiters queued on the backend (-1 when
	// unknown): one per process waiting for a lock (a process's
	// goroutines wait in its Template's local queue, behind one backend
	// waiter), one per call waiting for a read lock or permit. Each
	// executor's Inspect says what its backend counts.
	Waiters int
	// LocalWaiters is the number of goroutines of this process waiting
	// for the key in the Template's local queue. Template.Inspect (package
	// lock4go) sets it; executors, which see only the backend, leave it 0.
	LocalWaiters int
}

// Inspector is implemented by executors that can report who holds a key.
type Inspector interface {
	// Inspect returns the current holders of key, or an error wrapping
	// [ErrLockNotHeld] when nobody holds it.
	Inspect(ctx context.Context, key string) (Holder, error)
}

// NewHolder returns the Holder of a key held as kind by holders (at least
// one, the first first; their Owner, Token and TTL only are read), with
// permits and waiters as [Holder] documents them.
func NewHolder(kind Kind, permits int, holders []Holder, waiters int) Holder {
	h := Holder{Kind: kind, Permits: permits, Waiters: waiters, Holders: make([]Holder, len(holders))}
	for i, x := range holders {
		h.Holders[i] = Holder{Owner: x.Owner, Token: x.Token, TTL: x.TTL}
	}
	if len(holders) > 0 {
		h.Owner, h.Token, h.TTL = holders[0].Owner, holders[0].Token, holders[0].TTL
	}
	return h
}
