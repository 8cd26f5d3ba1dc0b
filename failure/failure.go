package failure

import (
	"context"
	"errors"
	"time"

	"github.com/lock4go/lock4go/executor"
)

// DefaultMessage is the response body of a failure, Lock4j's default
// LockFailureException message.
const DefaultMessage = "request failed, please retry it."

// Info describes a lock that was not obtained.
type Info struct {
	// Key is the lock key, or "" when it could not be built.
	Key string
	// Err is the reason: a key builder error or the error of
	// Template.Lock. Never send it to clients.
	Err error
	// AcquireTimeout is how long the lock was waited for (zero for a single
	// attempt): a hint for Retry-After.
	AcquireTimeout time.Duration
}

// Kind classifies a failure.
type Kind int

const (
	// KindInternal is a server-side problem: a misconfiguration
	// (executor.ErrInvalidConfig) or an unexpected error.
	KindInternal Kind = iota
	// KindBusy means the lock is held by someone else
	// (executor.ErrNotAcquired).
	KindBusy
	// KindUnavailable means the backend could not answer
	// (executor.ErrBackend) or the executor is not registered
	// (executor.ErrUnknownExecutor).
	KindUnavailable
	// KindInvalidKey means the request did not yield a usable key
	// (executor.ErrInvalidKey).
	KindInvalidKey
)

// String returns the kind's name.
func (k Kind) String() string {
	switch k {
	case KindBusy:
		return "busy"
	case KindUnavailable:
		return "unavailable"
	case KindInvalidKey:
		return "invalid key"
	}
	return "internal"
}

// Classify returns the [Kind] of err.
func Classify(err error) Kind {
	switch {
	case errors.Is(err, executor.ErrInvalidKey):
		return KindInvalidKey
	case errors.Is(err, executor.ErrBackend), errors.Is(err, executor.ErrUnknownExecutor):
		return KindUnavailable
	case errors.Is(err, executor.ErrNotAcquired):
		return KindBusy
	}
	return KindInternal
}

type infoKey struct{}

// NewContext returns a child of ctx carrying f; fallback handlers receive
// such a context.
func NewContext(ctx context.Context, f Info) context.Context {
	return context.WithValue(ctx, infoKey{}, f)
}

// FromContext returns the failure carried by ctx, if any.
func FromContext(ctx context.Context) (Info, bool) {
	f, ok := ctx.Value(infoKey{}).(Info)
	return f, ok
}
