// Command lockcheck runs lock holders against one lock4go backend and
// reports, as JSON on stdout, what they observed. Run several at once on
// one --dir and key, then analyse the directory:
//
//	lockcheck --backend redis --addr 127.0.0.1:6379 --dir /tmp/run --id p1 --goroutines 4 --duration 30s &
//	lockcheck --backend redis --addr 127.0.0.1:6379 --dir /tmp/run --id p2 --goroutines 4 --duration 30s &
//	wait; lockcheck --mode analyse --dir /tmp/run
//
// Each holder reads a counter from the shared record file, sleeps --hold,
// presents its fencing token to the fence store and, if accepted, writes
// the counter plus one. Modes: holders (default), storm (acquisitions
// cancelled at random points, then a goroutine-leak check), analyse (merge
// the logs of a directory and check them).
//
// In holders mode SIGTERM or SIGINT ends the run gracefully, and SIGUSR1
// ends the holds in progress and to come at once, as if --hold had passed.
//
// The exit status is 0 when no violation was seen, 1 when one was, 2 on a
// usage or set-up error.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/internal/reliability"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

type flags struct {
	mode, backend, addr, namespace, key, api, dir, id    string
	lockKind                                             string
	permits                                              int
	cluster, ignoreLost, allowOverlap, allowStale        bool
	sample, allowRegression                              bool
	goroutines, acquisitions                             int
	duration, lease, expire, hold, acquireTimeout, retry time.Duration
	session, timeout, linger                             time.Duration
	stormTotal, stormKeys                                int
	stormDelay, stormSettle                              time.Duration
	logLevel                                             string
}

func parse(args []string) (flags, error) {
	var f flags
	fs := flag.NewFlagSet("lockcheck", flag.ContinueOnError)
	fs.StringVar(&f.mode, "mode", "holders", "holders, storm or analyse")
	fs.StringVar(&f.backend, "backend", "", "redis, zookeeper, etcd, redlock (one --addr per master), postgres, mysql or memory")
	fs.StringVar(&f.addr, "addr", "", "comma-separated server addresses")
	fs.BoolVar(&f.cluster, "cluster", false, "redis: use a Redis Cluster client")
	fs.StringVar(&f.namespace, "namespace", "", "zookeeper base path or etcd key prefix (executor default if empty)")
	fs.DurationVar(&f.session, "session", 2*time.Second, "zookeeper session timeout")
	fs.StringVar(&f.key, "key", "lockcheck", "lock key")
	fs.IntVar(&f.goroutines, "goroutines", 4, "holders in this process")
	fs.IntVar(&f.acquisitions, "acquisitions", 0, "locks to take in all (0: until --duration)")
	fs.DurationVar(&f.duration, "duration", 0, "run time (0: until --acquisitions)")
	fs.DurationVar(&f.lease, "lease", 2*time.Second, "Config.Expire: the watchdog lease")
	fs.DurationVar(&f.expire, "expire", 0, "fixed lease per lock (WithExpire); 0: watchdog with --lease")
	fs.DurationVar(&f.hold, "hold", 20*time.Millisecond, "sleep between reading and writing the record")
	fs.DurationVar(&f.acquireTimeout, "acquire-timeout", 5*time.Second, "Config.AcquireTimeout")
	fs.DurationVar(&f.retry, "retry", 50*time.Millisecond, "Config.RetryInterval")
	fs.DurationVar(&f.linger, "linger", 0, "keep the lock this long after the write (or until lost) before releasing")
	fs.StringVar(&f.api, "api", reliability.APILock, "lock, do or lead")
	fs.BoolVar(&f.sample, "sample", false, "sample the clock, then ask the lock's context's Err, every millisecond of the hold")
	fs.StringVar(&f.lockKind, "lock-kind", reliability.ModeMutex, "mutex, rw (read locks, every third hold a write lock) or permits")
	fs.IntVar(&f.permits, "permits", 0, "permits mode: the semaphore's size (analyse: how many permit holds may overlap)")
	fs.BoolVar(&f.ignoreLost, "ignore-lost", false, "sleep through a lost lock and present the token anyway")
	fs.StringVar(&f.dir, "dir", "", "shared directory: record, fence store, interval logs")
	fs.StringVar(&f.id, "id", "", "process name in the logs (default: the pid)")
	fs.DurationVar(&f.timeout, "timeout", 10*time.Minute, "hard limit of the whole run")
	fs.IntVar(&f.stormTotal, "storm-total", 2000, "storm: acquisitions")
	fs.IntVar(&f.stormKeys, "storm-keys", 4, "storm: distinct keys (--key plus a suffix)")
	fs.DurationVar(&f.stormDelay, "storm-delay", 2*time.Millisecond, "storm: cancel within this delay")
	fs.DurationVar(&f.stormSettle, "storm-settle", 0, "storm: wait this long, then inspect every key for leftovers")
	fs.BoolVar(&f.allowOverlap, "allow-overlap", false, "analyse: a holder was paused, overlaps are expected")
	fs.BoolVar(&f.allowStale, "allow-stale", false, "analyse: faults were injected, stale tokens are expected")
	fs.BoolVar(&f.allowRegression, "allow-regression", false, "analyse: a failover lost writes, token regressions are expected")
	fs.StringVar(&f.logLevel, "log-level", "warn", "stderr log level: debug, info, warn, error")
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	if f.dir == "" {
		return f, fmt.Errorf("--dir is required")
	}
	if f.id == "" {
		f.id = fmt.Sprint(os.Getpid())
	}
	return f, nil
}

func run(args []string) int {
	f, err := parse(args)
	if err != nil {
		fmt.Fprintln(os.Stderr, "lockcheck:", err)
		return 2
	}
	if f.mode == "analyse" {
		return analyse(f)
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(f.logLevel)); err != nil {
		fmt.Fprintln(os.Stderr, "lockcheck: --log-level:", err)
		return 2
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	ctx, cancel := context.WithTimeout(context.Background(), f.timeout)
	defer cancel()
	var endHolds <-chan struct{}
	if f.mode == "holders" {
		var stop context.CancelFunc
		ctx, stop = stopOnSignal(ctx)
		defer stop()
		endHolds = closeOnSignal(syscall.SIGUSR1)
	}
	tpl, closeBackend, err := open(ctx, f, logger)
	if err != nil {
		fmt.Fprintln(os.Stderr, "lockcheck:", err)
		return 2
	}
	rep, err := runMode(ctx, f, tpl, endHolds)
	if cerr := closeBackend(); cerr != nil {
		logger.Warn("lockcheck: close", "err", cerr)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "lockcheck:", err)
		return 2
	}
	rep.Backend = f.backend
	violations := rep.Violations
	if rep.Storm != nil {
		// After close: nothing of the executor's may be left running.
		rep.Storm.Leaks = reliability.FindLeaks()
		violations = append(violations, rep.Storm.Violations...)
		if rep.Storm.Leaks != "" {
			violations = append(violations, "goroutines leaked after close: "+rep.Storm.Leaks)
		}
	}
	emit(rep)
	return exitFor(violations)
}

// analyse merges the logs of --dir, prints the analysis and returns the
// exit status.
func analyse(f flags) int {
	a, err := reliability.Analyse(f.dir, reliability.AnalyseOptions{AllowOverlap: f.allowOverlap, AllowStale: f.allowStale, AllowRegression: f.allowRegression, Permits: f.permits})
	if err != nil {
		fmt.Fprintln(os.Stderr, "lockcheck:", err)
		return 2
	}
	emit(a)
	return exitFor(a.Violations)
}

// stopOnSignal returns a context that SIGTERM or SIGINT cancels: holds in
// progress finish and the report is printed. The handler stays until the
// process exits, so a late SIGTERM never kills it after its report. (Not
// in storm mode, whose leak check would see the signal goroutine.)
func stopOnSignal(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, stop := context.WithCancel(ctx)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, os.Interrupt)
	go func() {
		<-sigs
		stop()
	}()
	return ctx, stop
}

// closeOnSignal returns a channel that closes when the process receives
// sig.
func closeOnSignal(sig os.Signal) <-chan struct{} {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, sig)
	closed := make(chan struct{})
	go func() {
		<-sigs
		close(closed)
	}()
	return closed
}

// open connects to the backend of f and returns a Template over it and a
// function that closes the backend.
func open(ctx context.Context, f flags, logger *slog.Logger) (*lock4go.Template, func() error, error) {
	b := reliability.Backend{Kind: f.backend, Addrs: splitAddrs(f.addr), Cluster: f.cluster,
		Session: f.session, Namespace: f.namespace, Logger: logger}
	exec, closeBackend, err := b.Open(ctx)
	if err != nil {
		return nil, nil, err
	}
	tpl, err := lock4go.New(lock4go.Config{
		Expire: f.lease, AcquireTimeout: f.acquireTimeout, RetryInterval: f.retry, Logger: logger,
	}, exec)
	if err != nil {
		_ = closeBackend()
		return nil, nil, err
	}
	return tpl, closeBackend, nil
}

// runMode runs the holders or the storm of f over tpl; closing endHolds
// ends the holders' holds.
func runMode(ctx context.Context, f flags, tpl *lock4go.Template, endHolds <-chan struct{}) (reliability.Report, error) {
	switch f.mode {
	case "holders":
		return reliability.RunHolders(ctx, tpl, reliability.HolderConfig{
			Mode: f.lockKind, Permits: f.permits,
			Key: f.key, Goroutines: f.goroutines, Acquisitions: f.acquisitions, Duration: f.duration,
			Hold: f.hold, Expire: f.expire, API: f.api, Sample: f.sample, IgnoreLost: f.ignoreLost, Linger: f.linger, Dir: f.dir, ID: f.id,
			EndHolds: endHolds,
		})
	case "storm":
		keys := make([]string, f.stormKeys)
		for i := range keys {
			keys[i] = fmt.Sprintf("%s:%d", f.key, i)
		}
		s, err := reliability.Storm(ctx, tpl, reliability.StormConfig{
			Keys: keys, Goroutines: f.goroutines, Total: f.stormTotal, MaxDelay: f.stormDelay, Settle: f.stormSettle,
		})
		return reliability.Report{ID: f.id, PID: os.Getpid(), Storm: &s}, err
	}
	return reliability.Report{}, fmt.Errorf("unknown --mode %q", f.mode)
}

func splitAddrs(s string) []string {
	var out []string
	for a := range strings.SplitSeq(s, ",") {
		if a = strings.TrimSpace(a); a != "" {
			out = append(out, a)
		}
	}
	return out
}

func emit(v any) {
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

func exitFor(violations []string) int {
	if len(violations) > 0 {
		for _, v := range violations {
			fmt.Fprintln(os.Stderr, "lockcheck: VIOLATION:", v)
		}
		return 1
	}
	return 0
}
