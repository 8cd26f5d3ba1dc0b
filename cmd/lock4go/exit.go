package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/lock4go/lock4go/executor"
)

// Exit codes, listed in [mainUsage] and doc.go.
const (
	exitOK          = 0 // done; inspect: every key is held
	exitFailure     = 1 // any other failure
	exitUsage       = 2 // bad flags or arguments
	exitNotHeld     = 3 // a key is not held (inspect, release), or its holder changed (release)
	exitUnreachable = 4 // a backend is unreachable within --timeout, or failed
	exitRefused     = 5 // release: confirmation refused
)

var (
	// errHelp: -h was asked for; the usage was printed.
	errHelp = flag.ErrHelp
	// errRefused: release was not confirmed.
	errRefused = errors.New("not confirmed: nothing was broken")
	// errNotHeld: inspect found a key that nobody holds; the output says which.
	errNotHeld = fmt.Errorf("a key is not held: %w", executor.ErrLockNotHeld)
	// errUnreachable: a backend did not answer within --timeout.
	errUnreachable = errors.New("unreachable")
)

// usageError is a mistake in the command line. printed marks one the flag
// package has already reported, with the usage.
type usageError struct {
	msg     string
	printed bool
}

func (e *usageError) Error() string { return e.msg }

// usagef returns a [usageError].
func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// exitCode maps a command's error to the process's exit code.
func exitCode(err error) int {
	var ue *usageError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ue):
		return exitUsage
	case errors.Is(err, errRefused):
		return exitRefused
	case errors.Is(err, executor.ErrLockNotHeld):
		return exitNotHeld
	case errors.Is(err, errUnreachable), errors.Is(err, executor.ErrBackend),
		errors.Is(err, context.DeadlineExceeded):
		return exitUnreachable
	}
	return exitFailure
}
