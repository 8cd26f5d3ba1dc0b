// Command lockbench measures lock4go against raw protocol floors and peer
// lock libraries on servers it starts itself, and writes bench.md and
// bench.svg.
//
//	cd bench && go run ./cmd/lockbench -out ../docs
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"time"

	"github.com/lock4go/lock4go/bench"
)

func main() {
	out := flag.String("out", "", "directory for bench.md and bench.svg (empty: print the table only)")
	quick := flag.Bool("quick", false, "short runs, for a smoke test")
	scale := flag.Int("scale", 100_000, "locks held in the scale test (0: skip it)")
	flag.Parse()
	if err := run(*out, *quick, *scale); err != nil {
		fmt.Fprintln(os.Stderr, "lockbench:", err)
		os.Exit(1)
	}
}

func run(out string, quick bool, scale int) (err error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	start := time.Now()
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
	plan := bench.DefaultPlan()
	if quick {
		plan = bench.QuickPlan()
	}
	rows := bench.Run(ctx, env, cat, plan, os.Stderr)
	var sc *bench.ScaleResult
	if scale > 0 {
		r, err := bench.Scale(ctx, env, bench.ScaleOptions{Locks: scale}, os.Stderr)
		if err != nil {
			fmt.Fprintln(os.Stderr, "scale:", err)
		} else {
			sc = &r
		}
	}
	rep := bench.Report{Rows: rows, Plan: plan, Scale: sc, Elapsed: time.Since(start), Command: "cd bench && go run ./cmd/lockbench -out ../docs"}
	md := rep.Markdown()
	if out == "" {
		fmt.Print(md)
		return nil
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "bench.md"), []byte(md), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, "bench.svg"), []byte(rep.SVG()), 0o644)
}
