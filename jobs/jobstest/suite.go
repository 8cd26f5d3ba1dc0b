package jobstest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"testing"
	"time"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/jobs"
)

// Factory returns a Template over a fresh executor of the backend under
// test, with a client or session of its own, so that Templates from
// different calls behave like different processes. It registers its own
// clean-up with t.Cleanup.
type Factory func(t *testing.T) *lock4go.Template

// Options describe the backend under test. The zero value suits Redis,
// PostgreSQL and the memory executor.
type Options struct {
	// Lease is the shortest at-most-for the backend honours to the
	// millisecond, used by the expiry cases. Zero means 500ms. etcd
	// grants whole seconds, 2s at least.
	Lease time.Duration
	// Settle is how long the backend may take to show a release or expiry
	// to another client, past the bound under test. Zero means 2s; it is
	// an upper bound waited by polling, not a sleep.
	Settle time.Duration
	// Rounds is the number of runs per goroutine of the fuzz case. Zero
	// means 25.
	Rounds int
}

func (o Options) withDefaults() Options {
	if o.Lease == 0 {
		o.Lease = 500 * time.Millisecond
	}
	if o.Settle == 0 {
		o.Settle = 2 * time.Second
	}
	if o.Rounds == 0 {
		o.Rounds = 25
	}
	return o
}

// Run runs the suite as subtests of t.
func Run(t *testing.T, f Factory, o Options) {
	s := &suite{f: f, o: o.withDefaults()}
	for _, tc := range []struct {
		name string
		fn   func(t *testing.T)
	}{
		{"NoSecondLockWhileHeld", s.testNoSecondLock},
		{"FreeAfterAtMostFor", s.testFreeAfterAtMostFor},
		{"RelockAfterUnlock", s.testRelockAfterUnlock},
		{"AtLeastForHonoured", s.testAtLeastFor},
		{"ReleaseRefusedAfterExpiry", s.testReleaseAfterExpiry},
		{"KeepAlive", s.testKeepAlive},
		{"Fuzz", s.testFuzz},
	} {
		t.Run(tc.name, tc.fn)
	}
}

type suite struct {
	f Factory
	o Options
}

// runner returns a Runner over a fresh Template.
func (s *suite) runner(t *testing.T) *jobs.Runner {
	t.Helper()
	r, err := jobs.New(s.f(t), jobs.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// name returns a job name unique to this run.
func name(t *testing.T) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "lock4go-jobs:" + t.Name() + ":" + hex.EncodeToString(b[:])
}

// nop is a job that does nothing.
func nop(context.Context) error { return nil }

// started runs fn as job n on r in a goroutine, once it has taken the
// lock; it returns a channel closed when fn starts, and one that delivers
// the Result.
func started(ctx context.Context, r *jobs.Runner, n string, fn func(ctx context.Context) error, opts ...jobs.Option) (<-chan struct{}, <-chan jobs.Result) {
	in, out := make(chan struct{}), make(chan jobs.Result, 1)
	go func() {
		out <- r.Run(ctx, n, func(ctx context.Context) error {
			close(in)
			return fn(ctx)
		}, opts...)
	}()
	return in, out
}

// holding runs fn as job n of r in the background, as [started] does, and
// returns once fn has begun, with the channel of the run's result and when
// the run that began was started (before its lock was asked for). A run
// the backend did not answer (NotRun: under a busy machine the one
// attempt can time out) is tried again, five times at most; any other
// outcome before fn began fails t: the cases start their first run on a
// free job.
func holding(t *testing.T, ctx context.Context, r *jobs.Runner, n string, fn func(ctx context.Context) error, opts ...jobs.Option) (<-chan jobs.Result, time.Time) {
	t.Helper()
	for try := 1; ; try++ {
		begin := time.Now()
		in, out := started(ctx, r, n, fn, opts...)
		select {
		case <-in:
			return out, begin
		case res := <-out:
			if res.Outcome != jobs.NotRun || try == 5 {
				t.Fatalf("the first run of %s did not begin: outcome %v (err %v), try %d", n, res.Outcome, res.Err, try)
			}
			t.Logf("the first run of %s was not run (err %v): trying again", n, res.Err)
		}
	}
}

// want fails t unless res has the outcome o.
func want(t *testing.T, what string, res jobs.Result, o jobs.Outcome) {
	t.Helper()
	if res.Outcome != o {
		t.Fatalf("%s: outcome %v (err %v), want %v", what, res.Outcome, res.Err, o)
	}
}
