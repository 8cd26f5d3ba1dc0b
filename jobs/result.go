package jobs

import (
	"fmt"
	"time"
)

// Outcome says what became of one tick of a job.
type Outcome uint8

// The outcomes of [Runner.Run].
const (
	// Ran: this process took the job's lock and ran it; the function
	// returned nil and the lock was held throughout.
	Ran Outcome = iota + 1
	// Skipped: another holder has the job (running it, or keeping it
	// until its at-least-for end); this tick is not run here, nor queued.
	Skipped
	// Failed: the job ran here and returned an error, panicked, or lost
	// its lock while it ran (Result.Err wraps lock4go.ErrLockLost then:
	// its work may not have been exclusive).
	Failed
	// NotRun: the lock could not be asked for or answered (a backend
	// down, an invalid name or option); the job did not run here, and may
	// or may not have run elsewhere. Result.Err says why.
	NotRun
)

// String returns "ran", "skipped", "failed" or "not_run".
func (o Outcome) String() string {
	switch o {
	case Ran:
		return "ran"
	case Skipped:
		return "skipped"
	case Failed:
		return "failed"
	case NotRun:
		return "not_run"
	}
	return fmt.Sprintf("Outcome(%d)", uint8(o))
}

// Result is what [Runner.Run] did with one tick.
type Result struct {
	// Outcome says whether the job ran, was skipped or failed.
	Outcome Outcome
	// Err is nil for Ran and Skipped; the function's error (or panic),
	// the loss of the lock, or both, for Failed; why the job did not run,
	// for NotRun.
	Err error
	// Token is the fencing token of the run (Ran and Failed): strictly
	// increasing per job across every process.
	Token int64
	// Started is when the lock was taken (Ran and Failed), by this
	// process's clock.
	Started time.Time
	// Duration is how long the function ran.
	Duration time.Duration
	// HeldUntil is the at-least-for end: until when the job stays taken
	// after the function returned (by this process's clock; the backend
	// counts it by its own where it can: see [Runner.Run]). Zero when the
	// lock was released when the function returned.
	HeldUntil time.Time
}
