package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"time"

	"github.com/lock4go/lock4go"
)

// benchOptions are bench's own flags.
type benchOptions struct {
	pairs   int
	waiters []int
	samples int
	hold    time.Duration
	maxTime time.Duration
	key     string
}

// benchReport is bench's output; durations are in nanoseconds in JSON.
type benchReport struct {
	Backend     string        `json:"backend"`
	Address     string        `json:"address"`
	Key         string        `json:"key"`
	Uncontended dist          `json:"uncontended"`
	PairsPerSec float64       `json:"pairs_per_s"`
	Handoff     []handoffDist `json:"handoff"`
}

// dist summarises a sample of durations.
type dist struct {
	N   int           `json:"n"`
	P50 time.Duration `json:"p50_ns"`
	P99 time.Duration `json:"p99_ns"`
}

// handoffDist is the hand-off latency with a number of waiters.
type handoffDist struct {
	Waiters  int `json:"waiters"`
	Misses   int `json:"misses"`
	Timeouts int `json:"timeouts"`
	dist
}

// runBench implements "lock4go bench".
func runBench(ctx context.Context, std *stdio, args []string) error {
	fs := newFlagSet("bench", benchUsage, std.err)
	var c connFlags
	c.register(fs)
	var o benchOptions
	fs.IntVar(&o.pairs, "pairs", 2000, "uncontended Lock+Release pairs")
	waiters := fs.String("waiters", "2,8", "hand-off runs: waiting goroutines, comma-separated")
	fs.IntVar(&o.samples, "samples", 200, "hand-offs measured per run")
	fs.DurationVar(&o.hold, "hold", 5*time.Millisecond, "how long a holder keeps the lock in hand-off runs")
	fs.DurationVar(&o.maxTime, "max-time", 5*time.Second, "bound on each measurement")
	fs.StringVar(&o.key, "key", "", "lock key to use (default lock4go-bench:<random>)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if err := o.check(&c, pos, *waiters); err != nil {
		return err
	}
	b, err := dialOne(ctx, &c)
	if err != nil {
		return err
	}
	defer b.close()
	r, err := bench(ctx, b, &o)
	if err != nil {
		return err
	}
	return printBench(std, c.json, r)
}

// check validates the flags and fills in o.waiters and o.key.
func (o *benchOptions) check(c *connFlags, pos []string, waiters string) error {
	if err := c.check(); err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("bench takes no arguments")
	}
	for _, w := range splitList(waiters) {
		n, err := strconv.Atoi(w)
		if err != nil || n < 1 {
			return usagef("--waiters %q: want positive numbers, comma-separated", waiters)
		}
		o.waiters = append(o.waiters, n)
	}
	if o.pairs < 1 || o.samples < 1 || o.hold < 0 || o.maxTime <= 0 {
		return usagef("--pairs, --samples and --max-time must be positive, --hold not negative")
	}
	if o.key == "" {
		var r [6]byte
		_, _ = rand.Read(r[:])
		o.key = "lock4go-bench:" + hex.EncodeToString(r[:])
	}
	return nil
}

// bench runs the measurements through one Template over b.
func bench(ctx context.Context, b *backend, o *benchOptions) (*benchReport, error) {
	tpl, err := lock4go.New(lock4go.Config{Logger: slog.New(slog.DiscardHandler)}, b.exec)
	if err != nil {
		return nil, err
	}
	r := &benchReport{Backend: b.kind, Address: b.addr, Key: o.key}
	if r.Uncontended, r.PairsPerSec, err = uncontended(ctx, tpl, o); err != nil {
		return nil, err
	}
	for _, w := range o.waiters {
		h, err := handoff(ctx, tpl, o, w)
		if err != nil {
			return nil, err
		}
		r.Handoff = append(r.Handoff, h)
	}
	return r, nil
}

// uncontended times Lock+Release pairs on one goroutine, after one pair to
// warm up, and returns their distribution and rate.
func uncontended(ctx context.Context, tpl *lock4go.Template, o *benchOptions) (dist, float64, error) {
	ctx, cancel := context.WithTimeout(ctx, o.maxTime)
	defer cancel()
	samples := make([]time.Duration, 0, o.pairs)
	var start time.Time
	for i := -1; i < o.pairs && ctx.Err() == nil; i++ {
		t0 := time.Now()
		if i == 0 {
			start = t0
		}
		l, err := tpl.Lock(ctx, o.key)
		if err == nil {
			err = l.Release(context.WithoutCancel(ctx))
		}
		if err != nil && ctx.Err() == nil {
			return dist{}, 0, fmt.Errorf("uncontended pair %d: %w", i+1, err)
		}
		if err == nil && i >= 0 {
			samples = append(samples, time.Since(t0))
		}
	}
	if err := context.Cause(ctx); err != nil && len(samples) == 0 {
		return dist{}, 0, fmt.Errorf("uncontended: no pair within --max-time: %w", err)
	}
	return distOf(samples), float64(len(samples)) / time.Since(start).Seconds(), nil
}

// distOf summarises d (nearest rank); it sorts d in place.
func distOf(d []time.Duration) dist {
	if len(d) == 0 {
		return dist{}
	}
	slices.Sort(d)
	q := func(p float64) time.Duration {
		i := int(p*float64(len(d))+0.5) - 1
		return d[min(max(i, 0), len(d)-1)]
	}
	return dist{N: len(d), P50: q(0.50), P99: q(0.99)}
}

// printBench writes r as JSON or as text in the terms of docs/bench.md.
func printBench(std *stdio, asJSON bool, r *benchReport) error {
	if asJSON {
		return json.NewEncoder(std.out).Encode(r)
	}
	w := std.out
	fmt.Fprintf(w, "lock4go/%s on %s, key %s, one Template, default Config\n", r.Backend, r.Address, r.Key)
	u := r.Uncontended
	fmt.Fprintf(w, "uncontended acquire + release: p50 %v  p99 %v  %.0f pairs/s  (%d pairs)\n",
		round(u.P50), round(u.P99), r.PairsPerSec, u.N)
	for _, h := range r.Handoff {
		fmt.Fprintf(w, "hand-off, %d waiters:            p50 %v  p99 %v  (%d hand-offs, %d misses, %d timeouts)\n",
			h.Waiters, round(h.P50), round(h.P99), h.N, h.Misses, h.Timeouts)
	}
	return nil
}

// round keeps three significant digits or so, as docs/bench.md prints.
func round(d time.Duration) time.Duration {
	switch {
	case d >= 100*time.Millisecond:
		return d.Round(time.Millisecond)
	case d >= 10*time.Millisecond:
		return d.Round(100 * time.Microsecond)
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond)
	}
	return d.Round(time.Microsecond)
}
