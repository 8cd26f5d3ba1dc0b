package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lock4go/lock4go"
	lredis "github.com/lock4go/lock4go/executors/redis"
)

// ScaleOptions shape the held-locks scale test.
type ScaleOptions struct {
	// Locks is how many locks are held at once. Zero means 100,000.
	Locks int
	// Expire is the watchdog lease; renewals come every third of it. Zero
	// means 3s.
	Expire time.Duration
	// Watch is how long the locks stay held after the last acquisition,
	// while renewals are counted. Zero means 2×Expire (six renewals each).
	Watch time.Duration
	// Parallel is how many goroutines acquire and release. Zero means 32.
	Parallel int
}

func (o ScaleOptions) withDefaults() ScaleOptions {
	if o.Locks == 0 {
		o.Locks = 100_000
	}
	if o.Expire == 0 {
		o.Expire = 3 * time.Second
	}
	if o.Watch == 0 {
		o.Watch = 2 * o.Expire
	}
	if o.Parallel == 0 {
		o.Parallel = 32
	}
	return o
}

// ScaleResult is what holding many locks on one Redis executor costs.
type ScaleResult struct {
	Locks       int
	Expire      time.Duration
	Watch       time.Duration
	AcquireTime time.Duration
	ReleaseTime time.Duration

	// GoroutinesBefore is the count before the first lock; ExtraGoroutines
	// the most above it seen while the locks were held and renewed (the
	// acquiring goroutines had ended); GoroutinesAfter the count once all
	// were released and the watchdog had stopped. These counts include
	// go-redis's own background goroutines, which come and go.
	GoroutinesBefore, ExtraGoroutines, GoroutinesAfter int

	// Lock4goGoroutines is the most goroutines running lock4go code (the
	// root package or an executor) seen at once while the locks were held,
	// above the count at idle (other executors of the process have
	// goroutines of their own).
	Lock4goGoroutines int

	// HeapPerLock is the live heap per held lock (HeapAlloc after GC, held
	// minus before, over Locks), including the caller's *Lock handles.
	HeapPerLock float64

	// Renewals is the renew scripts the server ran (EVALSHA calls) during
	// Watch; Pipelines and Piped the renewal pipelines the client sent and
	// the commands in them; Others the commands it sent outside pipelines.
	Renewals, Pipelines, Piped, Others int64
	// OthersByName names the commands counted in Others.
	OthersByName map[string]int64

	// Stacks is the goroutine profile (debug=1) taken when the goroutine
	// count peaked during Watch, to tell what the extra goroutines were.
	Stacks string

	// SlowestPipeline and LargestPipeline are the longest renewal pipeline
	// and the most renewals one carried, over the whole test.
	SlowestPipeline time.Duration
	LargestPipeline int

	// Lost counts locks that ended before their release (must be 0);
	// RenewFailed the renewals that failed and were retried.
	Lost, RenewFailed int
}

// RenewalsPerLockPerPeriod is how many times each lock was renewed per
// third of its lease (1.0 means exactly on schedule).
func (r ScaleResult) RenewalsPerLockPerPeriod() float64 {
	periods := r.Watch.Seconds() / (r.Expire / 3).Seconds()
	return float64(r.Renewals) / float64(r.Locks) / periods
}

// Scale holds o.Locks locks at once on one Template over one Redis executor
// with the watchdog on, and measures goroutines, heap and renewal traffic.
func Scale(ctx context.Context, env *Env, o ScaleOptions, log io.Writer) (ScaleResult, error) {
	o = o.withDefaults()
	r := ScaleResult{Locks: o.Locks, Expire: o.Expire, Watch: o.Watch}
	pc := &PipelineCounter{}
	client := env.RedisClient(pc)
	exec, err := lredis.New(client, lredis.Options{})
	if err != nil {
		return r, err
	}
	defer exec.Close()
	var lost, renewFailed atomic.Int64
	tpl, err := lock4go.New(lock4go.Config{
		Expire: o.Expire,
		Logger: slog.New(slog.DiscardHandler), // losses are counted, not logged 100k times
		Observer: lock4go.ObserverFunc(func(_ context.Context, ev lock4go.Event) {
			switch ev.Kind {
			case lock4go.EventLost:
				lost.Add(1)
			case lock4go.EventRenewFailed:
				renewFailed.Add(1)
			}
		}),
	}, exec)
	if err != nil {
		return r, err
	}
	// Warm up the pool and the scripts, and let the watchdog go idle.
	var warm sync.WaitGroup
	for i := range o.Parallel {
		warm.Go(func() {
			if l, err := tpl.Lock(ctx, fmt.Sprintf("lockbench:scale:warm:%d", i)); err == nil {
				_ = l.Release(ctx)
			}
		})
	}
	warm.Wait()
	time.Sleep(100 * time.Millisecond)

	r.GoroutinesBefore = idleGoroutines()
	ownIdle, _ := lock4goGoroutines()
	if os.Getenv("LOCK4GO_SCALE_DEBUG") != "" {
		_ = pprof.Lookup("goroutine").WriteTo(os.Stderr, 1)
	}
	heap0 := liveHeap()

	locks := make([]*lock4go.Lock, o.Locks)
	start := time.Now()
	if err := parallel(o.Locks, o.Parallel, func(i int) error {
		l, err := tpl.Lock(ctx, fmt.Sprintf("lockbench:scale:%d", i))
		locks[i] = l
		return err
	}); err != nil {
		releaseAll(ctx, locks, o.Parallel)
		return r, fmt.Errorf("scale: acquire: %w", err)
	}
	r.AcquireTime = time.Since(start)
	r.HeapPerLock = float64(liveHeap()-heap0) / float64(o.Locks)
	fmt.Fprintf(log, "scale: %d locks acquired in %v, heap %.0f B/lock\n", o.Locks, r.AcquireTime.Round(time.Millisecond), r.HeapPerLock)

	stats := RedisStats{Client: env.redisStats, Sent: env.RedisSent}
	before, err := stats.commandstats(ctx)
	if err != nil {
		return r, err
	}
	c0, p0, piped0 := pc.Counts()
	alone0 := pc.Alone()
	maxG := 0
	tick := time.NewTicker(5 * time.Millisecond)
	watchEnd := time.After(o.Watch)
watch:
	for {
		select {
		case <-tick.C:
			maxG = max(maxG, runtime.NumGoroutine())
			if n, stacks := lock4goGoroutines(); n-ownIdle > r.Lock4goGoroutines {
				r.Lock4goGoroutines, r.Stacks = n-ownIdle, stacks
			}
		case <-watchEnd:
			break watch
		case <-ctx.Done():
			break watch
		}
	}
	tick.Stop()
	after, err := stats.commandstats(ctx)
	if err != nil {
		return r, err
	}
	c1, p1, piped1 := pc.Counts()
	r.ExtraGoroutines = maxG - r.GoroutinesBefore
	r.Renewals = after["evalsha"] - before["evalsha"] + after["eval"] - before["eval"]
	r.Pipelines, r.Piped, r.Others = p1-p0, piped1-piped0, c1-c0
	r.OthersByName = map[string]int64{}
	for k, v := range pc.Alone() {
		if d := v - alone0[k]; d != 0 {
			r.OthersByName[k] = d
		}
	}
	for _, k := range connectionSetup {
		r.Others -= r.OthersByName[k]
		delete(r.OthersByName, k)
	}
	r.Lost, r.RenewFailed = int(lost.Load()), int(renewFailed.Load())
	r.SlowestPipeline, r.LargestPipeline = pc.Pipelines()
	fmt.Fprintf(log, "scale: during %v: %d lock4go goroutines at most (%d extra in all), %d renewals in %d pipelines (%.2f renewals per lock per Expire/3), %d commands outside pipelines %v; slowest pipeline %v (largest %d); %d lost, %d renewals failed\n",
		o.Watch, r.Lock4goGoroutines, r.ExtraGoroutines, r.Renewals, r.Pipelines, r.RenewalsPerLockPerPeriod(), r.Others, r.OthersByName, r.SlowestPipeline.Round(time.Millisecond), r.LargestPipeline, r.Lost, r.RenewFailed)

	start = time.Now()
	releaseAll(ctx, locks, o.Parallel)
	r.ReleaseTime = time.Since(start)
	r.GoroutinesAfter = settledGoroutines(r.GoroutinesBefore, 3*time.Second)
	if os.Getenv("LOCK4GO_SCALE_DEBUG") != "" {
		_ = pprof.Lookup("goroutine").WriteTo(os.Stderr, 1)
	}
	fmt.Fprintf(log, "scale: released in %v; goroutines before %d, after %d\n", r.ReleaseTime.Round(time.Millisecond), r.GoroutinesBefore, r.GoroutinesAfter)
	return r, nil
}

// connectionSetup are the commands go-redis sends on a new connection; the
// scale test does not count them as renewal traffic.
var connectionSetup = []string{"hello", "auth", "client", "select", "ping"}

// parallel runs f(0..n-1) on workers goroutines and returns the first error.
func parallel(n, workers int, f func(i int) error) error {
	var (
		next atomic.Int64
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
	)
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				if err := f(i); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
					next.Store(int64(n)) // stop the others
					return
				}
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

func releaseAll(ctx context.Context, locks []*lock4go.Lock, workers int) {
	_ = parallel(len(locks), workers, func(i int) error {
		if locks[i] != nil {
			_ = locks[i].Release(ctx)
		}
		return nil
	})
}

// liveHeap returns HeapAlloc after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// lock4goGoroutines returns how many goroutines have a frame of lock4go's
// own code (not this package's), and their stacks.
func lock4goGoroutines() (int, string) {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	var (
		count int
		own   []string
	)
	for g := range strings.SplitSeq(string(buf), "\n\n") {
		if strings.Contains(g, "github.com/lock4go/lock4go/bench") {
			continue
		}
		if strings.Contains(g, "github.com/lock4go/lock4go.") || strings.Contains(g, "github.com/lock4go/lock4go/executors/") {
			count++
			own = append(own, g)
		}
	}
	return count, strings.Join(own, "\n\n")
}

// idleGoroutines returns the goroutine count once it has not changed for
// 300ms (at most 3s): background work of the warm-up has ended.
func idleGoroutines() int {
	n, since := runtime.NumGoroutine(), time.Now()
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
		if m := runtime.NumGoroutine(); m != n {
			n, since = m, time.Now()
		} else if time.Since(since) >= 300*time.Millisecond {
			break
		}
	}
	return n
}

// settledGoroutines waits up to d for the goroutine count to fall to want
// (or below) and returns it; with want 0 it returns the count at once.
func settledGoroutines(want int, d time.Duration) int {
	deadline := time.Now().Add(d)
	for {
		n := runtime.NumGoroutine()
		if want == 0 || n <= want || time.Now().After(deadline) {
			return n
		}
		time.Sleep(10 * time.Millisecond)
	}
}
