package failure

import (
	"context"
	"errors"
	"time"

	"github.com/lock4go/lock4go/executor"
)

// Response bodies of the default strategies.
const (
	// DefaultMessage is the body of a busy lock, an unavailable backend and
	// an unexpected error: Lock4j's default LockFailureException message.
	DefaultMessage = "request failed, please retry it."

	// MisconfiguredMessage is the body of a [ClassMisconfigured] failure:
	// retrying cannot help, and the server log says what is wrong.
	MisconfiguredMessage = "server misconfigured: the lock of this request cannot be built; see the server log"

	// InvalidKeyMessage is the body of a [ClassInvalidKey] failure whose
	// error names no key part; one that does ([keybuilder.PartError]) is
	// answered with the part's name instead.
	InvalidKeyMessage = "invalid lock key"
)

// Info describes a lock that was not obtained.
type Info struct {
	// Key is the lock key, or "" when it could not be built.
	Key string
	// Err is the reason: a key builder error or the error of
	// Template.Lock. Never send it to clients.
	Err error
	// AcquireTimeout is how long the lock was waited for (zero for a single
	// attempt, NoWait): a hint for Retry-After.
	AcquireTimeout time.Duration
}

// Class classifies a failure by how a caller is answered.
type Class int

const (
	// ClassInternal is an unexpected server-side error: a func.<name> key
	// function or a TextMarshaler that failed, for example.
	ClassInternal Class = iota
	// ClassBusy means the lock is held by someone else
	// (executor.ErrNotAcquired).
	ClassBusy
	// ClassUnavailable means the backend could not answer
	// (executor.ErrBackend) or the executor is not registered
	// (executor.ErrUnknownExecutor).
	ClassUnavailable
	// ClassInvalidKey means the request did not yield a usable key
	// (executor.ErrInvalidKey): the client's fault.
	ClassInvalidKey
	// ClassMisconfigured means the server's configuration cannot lock the
	// request (executor.ErrInvalidConfig): a path.<name> whose wildcard the
	// route lacks, a handler not routed by a pattern, an executor without
	// the lock kind a Spec asks for. The operator's fault, the same for
	// every request of the route.
	ClassMisconfigured
)

// String returns the class's name.
func (k Class) String() string {
	switch k {
	case ClassBusy:
		return "busy"
	case ClassUnavailable:
		return "unavailable"
	case ClassInvalidKey:
		return "invalid key"
	case ClassMisconfigured:
		return "misconfigured"
	}
	return "internal"
}

// Classify returns the [Class] of err.
func Classify(err error) Class {
	switch {
	case errors.Is(err, executor.ErrInvalidKey):
		return ClassInvalidKey
	case errors.Is(err, executor.ErrBackend), errors.Is(err, executor.ErrUnknownExecutor):
		return ClassUnavailable
	case errors.Is(err, executor.ErrNotAcquired):
		return ClassBusy
	case errors.Is(err, executor.ErrInvalidConfig):
		return ClassMisconfigured
	}
	return ClassInternal
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
