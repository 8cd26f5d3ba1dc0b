package queued

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/leases"
	"github.com/lock4go/lock4go/internal/testlog"
	"github.com/lock4go/lock4go/internal/testwait"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fakeLease is a lease of the fake backend.
type fakeLease struct {
	key  string
	loss leases.Loss
}

func (l *fakeLease) Key() string        { return l.key }
func (l *fakeLease) Loss() *leases.Loss { return &l.loss }

// errDown is the fake backend's failure.
var errDown = errors.New("fake: down")

// fake is a backend whose round trips are recorded and fail on demand.
// Its Void holds the first round at a gate when one is set, and fails
// the voids of the keys down says (and every void once ctx has ended).
type fake struct {
	mu       sync.Mutex
	rounds   [][]string // the keys of every Void call, in order
	down     func(key string) bool
	gate     chan struct{} // the next round waits for it to close
	hang     bool          // a void waits for ctx to end, then fails
	released []string
	left     []string
}

func (f *fake) statements() Statements[*fakeLease] {
	return Statements[*fakeLease]{Void: f.void, Release: f.release, Leave: f.leave}
}

func (f *fake) void(ctx context.Context, items []Void[*fakeLease]) []error {
	keys := make([]string, len(items))
	for i, it := range items {
		keys[i] = it.Lease.key
	}
	f.mu.Lock()
	f.rounds = append(f.rounds, keys)
	gate, hang, down := f.gate, f.hang, f.down
	f.gate = nil
	f.mu.Unlock()
	if gate != nil {
		<-gate
	}
	if hang {
		<-ctx.Done()
	}
	errs := make([]error, len(items))
	for i, k := range keys {
		switch {
		case ctx.Err() != nil:
			errs[i] = ctx.Err()
		case down != nil && down(k):
			errs[i] = errDown
		}
	}
	return errs
}

func (f *fake) release(_ context.Context, l *fakeLease) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.released = append(f.released, l.key)
	return nil
}

func (f *fake) leave(_ context.Context, key string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.left = append(f.left, key)
	return nil
}

// round returns the keys of the i-th Void call, or nil.
func (f *fake) round(i int) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if i >= len(f.rounds) {
		return nil
	}
	return f.rounds[i]
}

// setDown sets which keys fail.
func (f *fake) setDown(down func(string) bool) {
	f.mu.Lock()
	f.down = down
	f.mu.Unlock()
}

// newCore returns a core over f whose log goes to rec, closed at the
// test's end.
func newCore(t *testing.T, f *fake, rec *testlog.Recorder, cleanup time.Duration) (*Core[*fakeLease], *Waits) {
	t.Helper()
	w := new(Waits)
	c := New(Config[*fakeLease]{Prefix: "fake", Log: slog.New(rec), CleanupTimeout: cleanup, Waits: w, Statements: f.statements()})
	t.Cleanup(func() { _ = c.Close(nil, nil) })
	return c, w
}

// voidLater schedules the void of a lease of key, with a lease of a minute.
func voidLater(c *Core[*fakeLease], key string, quiet Quiet) *fakeLease {
	l := &fakeLease{key: key}
	c.VoidLater(l, time.Minute, quiet)
	return l
}

// Log messages of the core, as the fake's prefix makes them.
const (
	msgFailed    = "fake: voiding an attempt whose reply was lost failed; retrying in the background (logged once until voids succeed again)"
	msgRecovered = "fake: voids of attempts whose reply was lost succeed again"
	msgDropped   = "fake: executor closed before voiding an attempt whose reply was lost; what it may have taken stays locked until its lease ends at worst (no other executor voids it)"
	msgGaveUp    = "fake: gave up voiding attempts whose reply was lost; their leases have ended by now"
)

// TestVoidLater_outage: while every void fails, a round sends the voids
// never tried and one failed void as a probe, the probes take turns, one
// warning is logged for the outage, and once a probe succeeds the whole
// backlog follows at once.
func TestVoidLater_outage(t *testing.T) {
	f, rec := &fake{gate: make(chan struct{})}, new(testlog.Recorder)
	f.setDown(func(string) bool { return true })
	c, _ := newCore(t, f, rec, time.Second)
	gate := f.gate
	voidLater(c, "a", false)
	testwait.For(t, 5*time.Second, "the first round", func() bool { return f.round(0) != nil })
	for _, k := range []string{"b", "c", "d"} {
		voidLater(c, k, false)
	}
	close(gate)
	testwait.For(t, 10*time.Second, "four rounds", func() bool { return f.round(3) != nil })
	f.setDown(nil)
	want := [][]string{{"a"}, {"b", "c", "d", "a"}, {"b"}, {"c"}}
	for i, w := range want {
		if got := f.round(i); !slices.Equal(got, w) {
			t.Fatalf("round %d sent %v, want %v", i, got, w)
		}
	}
	testwait.For(t, 10*time.Second, "the backlog after the outage", func() bool { return rec.Count(msgRecovered) == 1 })
	sent := map[string]bool{}
	for i := 0; f.round(i) != nil; i++ {
		for _, k := range f.round(i) {
			sent[k] = true
		}
	}
	if len(sent) != 4 {
		t.Fatalf("voids sent %v, want a, b, c and d", sent)
	}
	if n := rec.CountAt(slog.LevelWarn, msgFailed); n != 1 {
		t.Fatalf("%d warnings for one outage, want 1", n)
	}
}

// TestVoidLater_failedToTheBack: a void that fails while others succeed
// goes back to the end of the queue, behind the voids that came during
// its round, so that it cannot keep them from their turn.
func TestVoidLater_failedToTheBack(t *testing.T) {
	f, rec := &fake{}, new(testlog.Recorder)
	f.setDown(func(k string) bool { return k == "bad" })
	c, _ := newCore(t, f, rec, time.Second)
	f.gate = make(chan struct{})
	gate := f.gate
	voidLater(c, "x", false)
	testwait.For(t, 5*time.Second, "the first round", func() bool { return f.round(0) != nil })
	voidLater(c, "bad", false)
	voidLater(c, "good", false)
	f.mu.Lock()
	next := make(chan struct{})
	f.gate = next
	f.mu.Unlock()
	close(gate)
	testwait.For(t, 5*time.Second, "the second round", func() bool { return f.round(1) != nil })
	voidLater(c, "new", false)
	close(next)
	testwait.For(t, 5*time.Second, "the third round", func() bool { return f.round(2) != nil })
	if got, want := f.round(1), []string{"bad", "good"}; !slices.Equal(got, want) {
		t.Fatalf("second round %v, want %v", got, want)
	}
	if got, want := f.round(2), []string{"new", "bad"}; !slices.Equal(got, want) {
		t.Fatalf("third round %v, want %v: the failed void goes behind the one that came during its round", got, want)
	}
}

// TestVoidLater_quiet: the failures of voids of attempts that most likely
// never reached the backend are debug messages, never warnings.
func TestVoidLater_quiet(t *testing.T) {
	f, rec := &fake{}, new(testlog.Recorder)
	f.setDown(func(string) bool { return true })
	c, _ := newCore(t, f, rec, time.Second)
	voidLater(c, "q", true)
	testwait.For(t, 5*time.Second, "two rounds", func() bool { return f.round(1) != nil })
	if n, d := rec.CountAt(slog.LevelWarn, msgFailed), rec.CountAt(slog.LevelDebug, msgFailed); n != 0 || d == 0 {
		t.Fatalf("a quiet void's failures: %d warnings and %d debug messages, want none and some", n, d)
	}
}

// TestVoids_giveUp: a void whose lease has surely ended is given up
// unsent, with one warning until a round succeeds.
func TestVoids_giveUp(t *testing.T) {
	f, rec := &fake{}, new(testlog.Recorder)
	c, _ := newCore(t, f, rec, time.Second)
	c.voids.items = []Void[*fakeLease]{
		{Lease: &fakeLease{key: "old"}, giveUp: time.Now().Add(-time.Second)},
		{Lease: &fakeLease{key: "new"}, giveUp: time.Now().Add(time.Minute)},
	}
	items, expired := c.voids.take(time.Now(), false)
	if len(items) != 1 || items[0].Lease.key != "new" || len(expired) != 1 || expired[0].Lease.key != "old" {
		t.Fatalf("take = %v, %v; want new to send and old given up", items, expired)
	}
	c.reportGiveUps(expired)
	c.reportGiveUps(expired)
	if w, d := rec.CountAt(slog.LevelWarn, msgGaveUp), rec.CountAt(slog.LevelDebug, msgGaveUp); w != 1 || d != 1 {
		t.Fatalf("two give-ups: %d warnings and %d debug messages, want 1 and 1", w, d)
	}
}

// TestClose_pendingVoids: Close while a void hangs (a backend that does
// not answer) returns within about one CleanupTimeout, gives the void one
// more round and then up with a warning; a void scheduled after Close runs
// in the caller's goroutine and ends by Close's deadline.
func TestClose_pendingVoids(t *testing.T) {
	const cleanup = 300 * time.Millisecond
	f, rec := &fake{hang: true}, new(testlog.Recorder)
	c, _ := newCore(t, f, rec, cleanup)
	voidLater(c, "a", false)
	testwait.For(t, 5*time.Second, "the first round", func() bool { return f.round(0) != nil })
	start := time.Now()
	if err := c.Close(nil, nil); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > cleanup+time.Second {
		t.Fatalf("Close took %v with a hanging void, CleanupTimeout %v", took, cleanup)
	}
	if rec.CountAt(slog.LevelWarn, msgDropped) != 1 {
		t.Fatal("the pending void was dropped without a warning")
	}
	if f.round(1) == nil {
		t.Fatal("the pending void got no round after Close began")
	}
	start = time.Now()
	voidLater(c, "late", false)
	if took := time.Since(start); took > cleanup+time.Second {
		t.Fatalf("a void after Close took %v", took)
	}
	if rec.CountAt(slog.LevelWarn, msgDropped) != 2 {
		t.Fatal("the void after Close was dropped without a warning")
	}
}

// TestClose_heldAndWaits: Close marks the held leases lost with a cause
// wrapping ErrClosed and releases them, leaves the queues of the watched
// keys, and refuses a lease taken after it began, releasing it.
func TestClose_heldAndWaits(t *testing.T) {
	f, rec := &fake{}, new(testlog.Recorder)
	c, waits := newCore(t, f, rec, time.Second)
	held := &fakeLease{key: "held"}
	if err := c.Add(held); err != nil {
		t.Fatal(err)
	}
	waits.Add("watched", NewWatcher(), time.Second)
	if err := c.Close(nil, nil); err != nil {
		t.Fatal(err)
	}
	if !c.Closed() || c.Life().Err() == nil {
		t.Fatal("not closed after Close")
	}
	if cause := held.loss.Cause(); !errors.Is(cause, executor.ErrClosed) {
		t.Fatalf("loss cause of a lease held at Close = %v, want ErrClosed", cause)
	}
	late := &fakeLease{key: "late"}
	if err := c.Add(late); !errors.Is(err, executor.ErrClosed) {
		t.Fatalf("Add after Close = %v, want ErrClosed", err)
	}
	if !slices.Equal(f.released, []string{"held", "late"}) || !slices.Equal(f.left, []string{"watched"}) {
		t.Fatalf("released %v and left %v, want [held late] and [watched]", f.released, f.left)
	}
	if err := c.Close(nil, nil); err != nil {
		t.Fatalf("second Close = %v", err)
	}
}

// TestUnwatch: the stop of a watch runs once, and the last watcher's stop
// leaves the key's queue after LeaveDelay, in the background.
func TestUnwatch(t *testing.T) {
	f, rec := &fake{}, new(testlog.Recorder)
	c, waits := newCore(t, f, rec, time.Second)
	w := NewWatcher()
	waits.Add("k", w, time.Second)
	calls := 0
	stop := c.Unwatch("k", w, func() { calls++ })
	stop()
	stop()
	if calls != 1 {
		t.Fatalf("also ran %d times, want 1", calls)
	}
	testwait.For(t, 5*time.Second, "the departure from k's queue", func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		return slices.Equal(f.left, []string{"k"})
	})
}
