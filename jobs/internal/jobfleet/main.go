// Command jobfleet is one instance of a fleet that schedules the same job
// with gocron v2 through lock4go's jobs package, for the fleet tests of
// package jobs: real processes, clocks offset, killed and paused. It
// prints one JSON record per event on stdout:
//
//	{"ev":"run","tick":N,"token":T,"fired":ns,"start":ns,"end":ns}   a short job ran
//	{"ev":"lost","token":T,"at":ns,"err":"..."}            a short job's lock was lost (before its at-least-for end)
//	{"ev":"nolock","fired":ns,"end":ns,"err":"..."}        the scheduler fired and did not get the lock
//	{"ev":"unlock","fired":ns,"start":ns,"end":ns}         the scheduler unlocked the lock it got when it fired
//	{"ev":"start","token":T,"start":ns}                    a long job started
//	{"ev":"told","token":T,"at":ns}                        its context ended (lock lost)
//	{"ev":"write","token":T,"at":ns,"ok":bool}             a fenced write, accepted or rejected
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/go-co-op/gocron/v2"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/internal/reliability"
	"github.com/lock4go/lock4go/internal/timerprobe"
	"github.com/lock4go/lock4go/jobs"
	"github.com/lock4go/lock4go/jobs/gocronlock"
)

// probe measures how late this process's timers fire, for the runs' records.
var probe = timerprobe.Start()

func main() {
	kind := flag.String("backend", "redis", "redis, etcd, zookeeper or postgres")
	addr := flag.String("addr", "", "server addresses, comma-separated")
	ns := flag.String("namespace", "", "ZooKeeper base path or etcd prefix")
	name := flag.String("job", "fleet-job", "the job's name")
	offset := flag.Duration("offset", 0, "how late this instance's clock runs: its ticks fire this much after the second")
	mode := flag.String("mode", "tick", "tick: a short job every second; long: a job that runs until its lock is lost")
	atMost := flag.Duration("atmost", 5*time.Second, "AtMostFor")
	atLeast := flag.Duration("atleast", 500*time.Millisecond, "AtLeastFor")
	fence := flag.String("fence", "", "long: the fence file")
	keepAlive := flag.Bool("keepalive", false, "renew the job's lease while it runs")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if err := run(ctx, *kind, *addr, *ns, *name, *offset, *mode, jobs.Config{AtMostFor: *atMost, AtLeastFor: *atLeast, KeepAlive: *keepAlive}, *fence); err != nil {
		fmt.Fprintln(os.Stderr, "jobfleet:", err)
		os.Exit(1)
	}
}

var out = struct {
	sync.Mutex
	enc *json.Encoder
}{enc: json.NewEncoder(os.Stdout)}

func emit(rec map[string]any) {
	out.Lock()
	defer out.Unlock()
	_ = out.enc.Encode(rec)
}

func run(ctx context.Context, kind, addr, ns, name string, offset time.Duration, mode string, cfg jobs.Config, fence string) error {
	ex, closeEx, err := reliability.Backend{Kind: kind, Addrs: strings.Split(addr, ","), Namespace: ns, Session: 2 * time.Second}.Open(ctx)
	if err != nil {
		return err
	}
	defer closeEx()
	tpl, err := lock4go.New(lock4go.Config{}, ex)
	if err != nil {
		return err
	}
	// Connected, and the executor's first-attempt check done, before the
	// first tick, as a service would be (docs/postgres.md): under make
	// test-under-load a cold PostgreSQL executor's first attempt (a dial,
	// the check, the acquire) took 1.5s, and its tick ran that late.
	warm, err := tpl.Lock(ctx, fmt.Sprintf("%s:warm:%d", name, os.Getpid()), lock4go.WithAcquireTimeout(time.Minute))
	if err != nil {
		return err
	}
	if err := warm.Release(ctx); err != nil {
		return err
	}
	r, err := jobs.New(tpl, cfg)
	if err != nil {
		return err
	}
	locker := &firedLocker{Locker: gocronlock.NewLocker(r)}
	s, err := gocron.NewScheduler(gocron.WithDistributedLocker(locker))
	if err != nil {
		return err
	}
	task := func() { short(ctx, locker, name, offset) }
	if mode == "long" {
		task = func() { long(ctx, locker.Locker, name, fence) }
	}
	first := time.Now().Truncate(time.Second).Add(2*time.Second + offset)
	if _, err := s.NewJob(gocron.DurationJob(time.Second), gocron.NewTask(task), gocron.WithName(name),
		gocron.WithStartAt(gocron.WithStartDateTime(first))); err != nil {
		return err
	}
	s.Start()
	emit(map[string]any{"ev": "ready"})
	<-ctx.Done()
	if err := s.Shutdown(); err != nil {
		return err
	}
	// Jobs kept until their at-least-for end by this process (etcd,
	// ZooKeeper) must not be freed by closing the executor.
	dctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return r.Drain(dctx)
}

// firedLocker is the scheduler's locker, noting when the scheduler fired:
// when it asked for the job's lock (one job, so one time).
type firedLocker struct {
	*gocronlock.Locker
	fired atomic.Int64 // Unix ns
}

// Lock notes the time and takes the lock. A lock not taken is recorded
// ("nolock": when the scheduler fired, when the answer came, why, and
// whether the backend failed to answer), and so
// is each unlock ("unlock": when it was called and returned), so that a
// tick nobody ran can be told apart: every process refused (the lock of
// the run before still held, or a backend error), or none fired.
func (k *firedLocker) Lock(ctx context.Context, key string) (gocron.Lock, error) {
	fired := time.Now()
	k.fired.Store(fired.UnixNano())
	lk, err := k.Locker.Lock(ctx, key)
	if err != nil {
		emit(map[string]any{"ev": "nolock", "fired": fired.UnixNano(), "end": time.Now().UnixNano(), "err": err.Error(),
			"backend": errors.Is(err, lock4go.ErrBackend)})
		return nil, err
	}
	return &timedLock{Lock: lk, fired: fired}, nil
}

// timedLock records its unlock.
type timedLock struct {
	gocron.Lock
	fired time.Time
}

// Unlock unlocks and records when it was called and returned.
func (l *timedLock) Unlock(ctx context.Context) error {
	start := time.Now()
	err := l.Lock.Unlock(ctx)
	rec := map[string]any{"ev": "unlock", "fired": l.fired.UnixNano(), "start": start.UnixNano(), "end": time.Now().UnixNano()}
	if err != nil {
		rec["err"] = err.Error()
	}
	emit(rec)
	return err
}

// short records the tick it ran: the second its clock said it was when
// the scheduler fired (asked for the lock; the backend may take a while
// to answer on a busy machine).
func short(ctx context.Context, k *firedLocker, name string, offset time.Duration) {
	jctx, cancel := k.Context(ctx, name)
	defer cancel()
	l := lock4go.LockFrom(jctx, name)
	if l == nil {
		return
	}
	start, fired := time.Now(), time.Unix(0, k.fired.Load())
	tick := fired.Add(-offset).Add(500 * time.Millisecond).Truncate(time.Second).Unix()
	// How late this process's timers ran in the tick before: a scheduler
	// that fires that late runs a tick as if its clock were that much
	// behind, beyond what AtLeastFor covers.
	late := timerprobe.Max(probe.Delays(), fired.Add(-1500*time.Millisecond).UnixNano(), fired.UnixNano())
	time.Sleep(20 * time.Millisecond)
	emit(map[string]any{"ev": "run", "tick": tick, "token": l.Token(), "fired": fired.UnixNano(), "start": start.UnixNano(),
		"end": time.Now().UnixNano(), "latems": late.Milliseconds(), "at": l.AcquiredAt().UnixNano()})
	go reportLoss(l)
}

// reportLoss records the loss of l, the lock of a short job kept until its
// at-least-for end, if it is lost rather than released: the next run may
// then come sooner than AtLeastFor after it.
func reportLoss(l *lock4go.Lock) {
	<-l.Done()
	if err := l.Err(); errors.Is(err, lock4go.ErrLockLost) {
		at := time.Now()
		late := timerprobe.Max(probe.Delays(), at.Add(-2*time.Second).UnixNano(), at.UnixNano())
		emit(map[string]any{"ev": "lost", "token": l.Token(), "at": at.UnixNano(), "err": err.Error(), "latems": late.Milliseconds()})
	}
}

// long runs until its lock is lost, writing to the fence every 20ms with
// its token, each write after asking the lock.
func long(ctx context.Context, k *gocronlock.Locker, name, fence string) {
	jctx, cancel := k.Context(ctx, name)
	defer cancel()
	l := lock4go.LockFrom(jctx, name)
	if l == nil {
		return
	}
	emit(map[string]any{"ev": "start", "token": l.Token(), "start": l.AcquiredAt().UnixNano()})
	for {
		if l.Err() != nil {
			emit(map[string]any{"ev": "told", "token": l.Token(), "at": time.Now().UnixNano()})
			// One more write, as a holder that asked just before it stalled
			// would make, once the next holder wrote: the fence must refuse it.
			waitNewer(fence, l.Token(), 10*time.Second)
			ok := write(fence, l.Token())
			emit(map[string]any{"ev": "write", "token": l.Token(), "at": time.Now().UnixNano(), "ok": ok, "late": true})
			return
		}
		ok := write(fence, l.Token())
		emit(map[string]any{"ev": "write", "token": l.Token(), "at": time.Now().UnixNano(), "ok": ok})
		select {
		case <-jctx.Done():
		case <-time.After(20 * time.Millisecond):
		}
	}
}
