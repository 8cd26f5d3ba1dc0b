package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/lock4go/lock4go/bench"
)

// The cells -cells can run alone.
const (
	cellGuard      = "guard"      // the latency guard: lock4go's uncontended x-floor against the baseline
	cellEtcdAuth   = "etcdauth"   // etcd hand-offs with and without authentication
	cellServerCost = "servercost" // the Redis server-cost report
	cellSize       = "size"       // the binary sizes of bench/size's services
)

var knownCells = []string{cellGuard, cellEtcdAuth, cellServerCost, cellSize}

// guardFlags are the latency guard's flags.
type guardFlags struct {
	baseline string // the baseline file
	fail     bool   // exit 1 on a regression
	write    bool   // write the measured figures into the baseline
}

// errRegression: the guard found an x-floor above its baseline's noise
// band, and -guard-fail was given.
var errRegression = errors.New("latency regression (see the guard's warning)")

// runCells runs only the named cells and prints their sections.
func runCells(names []string, quick bool, g guardFlags) (err error) {
	for _, n := range names {
		if !slices.Contains(knownCells, n) {
			return fmt.Errorf("unknown cell %q (known: %s)", n, strings.Join(knownCells, ", "))
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	command := "cd bench && go run ./cmd/lockbench -cells " + strings.Join(names, ",")
	if !slices.ContainsFunc(names, func(n string) bool { return n != cellSize }) {
		md, err := binarySize(ctx, command) // builds only: no servers
		fmt.Print(md)
		return err
	}
	env, err := bench.Start()
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, env.Close()) }()
	cat, err := bench.NewCatalog(ctx, env)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, cat.Close()) }()
	var md string
	for _, n := range names {
		var section string
		switch n {
		case cellGuard:
			section, err = guard(ctx, cat, g, quick, command)
		case cellEtcdAuth:
			section, err = etcdAuth(ctx, env, quick, command)
		case cellServerCost:
			section, err = serverCost(ctx, env, cat, nil, command)
		case cellSize:
			section, err = binarySize(ctx, command)
		}
		md += section
		if err != nil {
			break
		}
	}
	fmt.Print(md)
	return err
}

// guard measures lock4go's x-floor on each backend, compares it with the
// baseline and returns its section; it warns on stderr of a rise beyond the
// noise band, and fails with errRegression when g.fail.
func guard(ctx context.Context, cat *bench.Catalog, g guardFlags, quick bool, command string) (string, error) {
	batches, budget := 3, bench.Budget{Ops: 2000, Time: 2 * time.Second}
	if quick {
		batches, budget = 1, bench.Budget{Ops: 200, Time: 300 * time.Millisecond}
	}
	got, err := bench.XFloor(ctx, cat, batches, budget)
	if err != nil {
		return "", err
	}
	base, err := bench.ReadBaseline(g.baseline)
	if err != nil && !(g.write && errors.Is(err, os.ErrNotExist)) {
		return "", fmt.Errorf("latency guard: %w", err)
	}
	md := bench.GuardMarkdown(base, got, command)
	regressions := base.Regressions(got)
	for _, r := range regressions {
		fmt.Fprintln(os.Stderr, "WARNING: latency guard:", r)
	}
	if g.write {
		base.XFloor = got
		base.Note = "measured " + time.Now().UTC().Format(time.DateOnly) + " by lockbench -write-baseline"
		if err := base.Write(g.baseline); err != nil {
			return md, err
		}
		fmt.Fprintln(os.Stderr, "latency guard: wrote", g.baseline)
	}
	if g.fail && len(regressions) > 0 {
		return md, errRegression
	}
	return md, nil
}

// etcdAuth runs the etcd auth cells and returns their section.
func etcdAuth(ctx context.Context, env *bench.Env, quick bool, command string) (string, error) {
	o := bench.EtcdAuthOptions{}
	if quick {
		o.Rounds, o.Budget = 1, bench.Budget{Ops: 30, Time: time.Second}
	}
	cells, err := bench.EtcdAuth(ctx, env, o, os.Stderr)
	if err != nil {
		return "", err
	}
	return bench.AuthMarkdown(cells, o, command), nil
}

// serverCost runs the Redis server-cost cells (reusing fleet, the fleet
// cells of a full run, when not nil) and returns their section.
func serverCost(ctx context.Context, env *bench.Env, cat *bench.Catalog, fleet []bench.FleetCell, command string) (string, error) {
	r, err := bench.ServerCost(ctx, env, cat, fleet, os.Stderr)
	if err != nil {
		return "", err
	}
	return r.Markdown(command), nil
}

// baselinePath is the guard's baseline file: in out when given, else in
// ../docs (lockbench runs from bench/).
func baselinePath(flagValue, out string) string {
	switch {
	case flagValue != "":
		return flagValue
	case out != "":
		return filepath.Join(out, "bench-baseline.json")
	}
	return filepath.Join("..", "docs", "bench-baseline.json")
}
