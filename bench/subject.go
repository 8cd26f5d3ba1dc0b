package bench

import (
	"context"
	"sync"
)

// Backend names a lock server.
type Backend string

// Backends.
const (
	Redis     Backend = "redis"
	Etcd      Backend = "etcd"
	ZooKeeper Backend = "zookeeper"
)

// Kind tells a raw floor, lock4go and a peer library apart.
type Kind int

// Kinds of subjects.
const (
	// KindRaw is the protocol floor: one acquire and one release command,
	// no waiting, no library.
	KindRaw Kind = iota + 1
	// KindLock4go is a lock4go Template.
	KindLock4go
	// KindPeer is another lock library.
	KindPeer
)

// String returns the kind's name.
func (k Kind) String() string {
	switch k {
	case KindRaw:
		return "raw floor"
	case KindLock4go:
		return "lock4go"
	case KindPeer:
		return "peer"
	}
	return "unknown"
}

// Unlock releases a held lock.
type Unlock func(ctx context.Context) error

// Locker takes a lock. Subjects that can wait wait until ctx ends; raw floors
// make one attempt and fail at once when the key is busy.
type Locker interface {
	Lock(ctx context.Context, key string) (Unlock, error)
}

// LockerFunc adapts a function to a [Locker].
type LockerFunc func(ctx context.Context, key string) (Unlock, error)

// Lock calls f(ctx, key).
func (f LockerFunc) Lock(ctx context.Context, key string) (Unlock, error) { return f(ctx, key) }

// Subject is one library (or raw floor) on one backend. It is safe for
// concurrent use.
type Subject struct {
	// Name identifies the subject in reports ("lock4go/redis").
	Name string
	// Backend is the server it talks to.
	Backend Backend
	// Kind is raw floor, lock4go or peer.
	Kind Kind
	// Waits is false for raw floors, which cannot wait for a busy key and
	// are only measured uncontended.
	Waits bool
	// Note says how the subject waits, for the report.
	Note string
	// Templates is how many lock4go Templates the subject spreads its
	// goroutines over (0 for others).
	Templates int

	newLocker func(g int) (Locker, error)
	close     func() error

	mu      sync.Mutex
	lockers map[int]Locker
}

// Contender returns the Locker measuring goroutine g uses. Lockers with
// state of their own (an etcd session, a zk.Lock) are made once per g and
// reused by later measures.
func (s *Subject) Contender(g int) (Locker, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if l, ok := s.lockers[g]; ok {
		return l, nil
	}
	l, err := s.newLocker(g)
	if err != nil {
		return nil, err
	}
	if s.lockers == nil {
		s.lockers = map[int]Locker{}
	}
	s.lockers[g] = l
	return l, nil
}

// Close releases the subject's clients and sessions.
func (s *Subject) Close() error {
	if s.close == nil {
		return nil
	}
	return s.close()
}

// shared returns a newLocker that gives every goroutine the same Locker.
func shared(l Locker) func(int) (Locker, error) {
	return func(int) (Locker, error) { return l, nil }
}
