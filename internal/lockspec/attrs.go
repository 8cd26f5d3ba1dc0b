package lockspec

import (
	"fmt"
	"slices"
	"time"

	"github.com/lock4go/lock4go"
)

// Attrs are the lock attributes of a Spec, field for field as
// middleware.Spec and grpclock.Spec document them.
type Attrs struct {
	Keys            []string
	Each            []string
	Shared          bool
	Permits         int
	Expire          time.Duration
	AcquireTimeout  time.Duration
	NoWait          bool
	RetryInterval   time.Duration
	Executor        string
	KeepUntilExpire bool
}

// Compiled are validated Attrs.
type Compiled struct {
	LockOpts []lock4go.LockOption
	Wait     time.Duration // the effective acquire timeout, for Retry-After
	Keep     bool          // KeepUntilExpire
}

// Compile validates a against tpl and translates it into lock options.
// Errors wrap lock4go.ErrInvalidConfig and start with where (the package
// and which Spec).
func (a *Attrs) Compile(tpl *lock4go.Template, where string) (Compiled, error) {
	if tpl == nil {
		return Compiled{}, fmt.Errorf("%s: nil Template: %w", where, lock4go.ErrInvalidConfig)
	}
	if err := a.validate(tpl, where); err != nil {
		return Compiled{}, err
	}
	c := Compiled{Wait: tpl.Config().AcquireTimeout, Keep: a.KeepUntilExpire}
	add := func(o lock4go.LockOption) { c.LockOpts = append(c.LockOpts, o) }
	if a.Expire > 0 {
		add(lock4go.WithExpire(a.Expire))
	}
	switch {
	case a.NoWait:
		c.Wait = 0
		add(lock4go.NoWait())
	case a.AcquireTimeout > 0:
		c.Wait = a.AcquireTimeout
		add(lock4go.WithAcquireTimeout(a.AcquireTimeout))
	}
	if a.RetryInterval > 0 {
		add(lock4go.WithRetryInterval(a.RetryInterval))
	}
	if a.Executor != "" {
		add(lock4go.WithExecutor(a.Executor))
	}
	switch {
	case a.Shared:
		add(lock4go.Shared())
	case a.Permits > 0:
		add(lock4go.WithPermits(a.Permits))
	}
	return c, nil
}

// validate refuses negative durations and counts and contradictions.
func (a *Attrs) validate(tpl *lock4go.Template, where string) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%s: %s: %w", where, fmt.Sprintf(format, args...), lock4go.ErrInvalidConfig)
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"Expire", a.Expire}, {"AcquireTimeout", a.AcquireTimeout}, {"RetryInterval", a.RetryInterval}} {
		if d.v < 0 {
			return bad("%s %v is negative", d.name, d.v)
		}
	}
	switch {
	case a.Permits < 0:
		return bad("Permits %d is negative", a.Permits)
	case a.KeepUntilExpire && a.Expire == 0:
		return bad("KeepUntilExpire needs Expire > 0")
	case a.Shared && a.Permits > 0:
		return bad("Shared and Permits together")
	case a.Executor != "" && !slices.Contains(tpl.ExecutorNames(), a.Executor):
		return fmt.Errorf("%s: executor %q is not registered: %w: %w",
			where, a.Executor, lock4go.ErrInvalidConfig, lock4go.ErrUnknownExecutor)
	}
	return nil
}

// KeyExprs returns the expressions of each key a Spec locks: Keys alone,
// or for each expression of Each, Keys followed by it.
func (a *Attrs) KeyExprs() [][]string {
	if len(a.Each) == 0 {
		return [][]string{a.Keys}
	}
	all := make([][]string, len(a.Each))
	for i, e := range a.Each {
		all[i] = append(slices.Clip(a.Keys), e)
	}
	return all
}
