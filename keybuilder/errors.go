package keybuilder

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/lock4go/lock4go/executor"
)

// PartError reports a key part that a request lacks, or has in a form that
// cannot be keyed (not an integer for "|int", longer than the part cap,
// ambiguous, in a body that is not JSON…). It wraps
// executor.ErrInvalidKey: the request is the client's fault, and the
// middleware answers 400 with [PartError.Message] as the body. The key
// builders of package grpclock and [Fields] return it too.
type PartError struct {
	// Expr is the key expression as configured ("query.id"), or the field
	// path for [Fields]: never request data.
	Expr string
	// Missing is true when the part is absent or empty, false when it is
	// there but cannot be keyed.
	Missing bool
	// Err is the cause, wrapping executor.ErrInvalidKey. It may quote a
	// bounded prefix of request data: log it, do not send it to clients.
	Err error
}

// Error returns the expression and the cause.
func (e *PartError) Error() string {
	return "keybuilder: key part " + strconv.Quote(e.Expr) + ": " + e.Err.Error()
}

// Unwrap returns the cause.
func (e *PartError) Unwrap() error { return e.Err }

// Message returns a description safe to send to the client, naming the
// part and echoing no request data: `missing key part "query.id"` or
// `invalid key part "json.id"`.
func (e *PartError) Message() string {
	if e.Missing {
		return "missing key part " + strconv.Quote(e.Expr)
	}
	return "invalid key part " + strconv.Quote(e.Expr)
}

// errMissing is the cause of a missing or empty part.
var errMissing = fmt.Errorf("missing or empty: %w", executor.ErrInvalidKey)

// missing returns the error of a missing or empty part.
func missing(expr string) error {
	return &PartError{Expr: expr, Missing: true, Err: errMissing}
}

// partErr wraps an error returned while evaluating the part of expr: a
// PartError when it wraps executor.ErrInvalidKey (the request's fault),
// the error with the expression named otherwise (a misconfiguration or a
// server-side failure).
func partErr(expr string, err error) error {
	if errors.Is(err, executor.ErrInvalidKey) {
		return &PartError{Expr: expr, Err: err}
	}
	return fmt.Errorf("keybuilder: key part %q: %w", expr, err)
}

// tooLong returns the error of a part longer than max bytes.
func tooLong(expr string, n, max int) error {
	return &PartError{Expr: expr, Err: fmt.Errorf("%d bytes, longer than the part cap of %d: %w", n, max, executor.ErrInvalidKey)}
}
