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
	"strconv"
	"strings"
	"time"

	"github.com/lock4go/lock4go/bench"
	"github.com/lock4go/lock4go/bench/size"
)

func main() {
	bench.FleetWorkerMain() // a worker process of the fleet cells: runs and exits
	out := flag.String("out", "", "directory for bench.md and bench.svg (empty: print the table only)")
	quick := flag.Bool("quick", false, "short runs, for a smoke test")
	scale := flag.Int("scale", 100_000, "locks held in the scale test (0: skip it)")
	fleet := flag.Bool("fleet", false, "add the fleet cells (real worker processes) to the run")
	fleetOnly := flag.Bool("fleet-only", false, "run only the fleet cells and write fleet.md")
	backends := flag.String("fleet-backends", "", "comma-separated backends of the fleet cells (empty: all)")
	subjects := flag.String("fleet-subjects", "", "comma-separated subject names of the fleet cells (empty: all)")
	procs := flag.String("fleet-procs", "", "comma-separated process counts of the one-key fleet cells, without the many-keys cells (empty: 1,4,16,64 and the many-keys cells)")
	cells := flag.String("cells", "", "run only these cells and print them: comma-separated, of "+strings.Join(knownCells, ", "))
	baseline := flag.String("baseline", "", "the latency guard's baseline file (empty: bench-baseline.json in -out, else ../docs)")
	guardFail := flag.Bool("guard-fail", false, "exit 1 when the latency guard finds a regression (else it only warns)")
	writeBaseline := flag.Bool("write-baseline", false, "write the latency guard's figures into the baseline file")
	flag.Parse()
	g := guardFlags{baseline: baselinePath(*baseline, *out), fail: *guardFail, write: *writeBaseline}
	if *cells != "" {
		if err := runCells(strings.Split(*cells, ","), *quick, g); err != nil {
			fmt.Fprintln(os.Stderr, "lockbench:", err)
			os.Exit(1)
		}
		return
	}
	for _, s := range strings.Split(*subjects, ",") {
		if s != "" {
			fleetSubjects = append(fleetSubjects, s)
		}
	}
	for _, p := range strings.Split(*procs, ",") {
		if n, err := strconv.Atoi(p); err == nil && n > 0 {
			fleetProcs = append(fleetProcs, n)
		}
	}
	for _, b := range strings.Split(*backends, ",") {
		if b != "" {
			fleetBackends = append(fleetBackends, bench.Backend(b))
		}
	}
	if *fleetOnly {
		if err := runFleet(*out, *quick); err != nil {
			fmt.Fprintln(os.Stderr, "lockbench:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*out, *quick, *scale, *fleet, g); err != nil {
		fmt.Fprintln(os.Stderr, "lockbench:", err)
		os.Exit(1)
	}
}

func run(out string, quick bool, scale int, fleet bool, g guardFlags) (err error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	start, machine := time.Now(), bench.ThisMachine()
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
	sc := runScale(ctx, env, scale)
	command := "cd bench && go run ./cmd/lockbench -out ../docs"
	var fleetMD, fleetSVG string
	var cells []bench.FleetCell
	if fleet {
		command += " -fleet"
		fo := fleetOptions(quick)
		if cells, err = bench.Fleet(ctx, env, fo, os.Stderr); err != nil {
			return err
		}
		fleetMD = bench.FleetMarkdown(cells, fo, command) + "![Redis fleets: server CPU and commands per acquisition by process count](fleet.svg)\n"
		fleetSVG = bench.FleetSVG(cells)
	}
	extraMD, guardErr := newCells(ctx, env, cat, cells, g, quick, command)
	if guardErr != nil && !errors.Is(guardErr, errRegression) {
		return guardErr
	}
	// A regression fails the run (-guard-fail) once the report is written.
	defer func() { err = errors.Join(err, guardErr) }()
	redlockMD, err := runRedlock(ctx, plan, command)
	if err != nil {
		return err
	}
	sizeMD, err := binarySize(ctx, command)
	if err != nil {
		return err
	}
	rep := bench.Report{Rows: rows, Plan: plan, Scale: sc, Elapsed: time.Since(start), Command: command, Machine: machine}
	return write(out, rep, rep.Markdown()+redlockMD+fleetMD+extraMD+sizeMD, fleetSVG)
}

// runScale runs the scale test with n locks, if n > 0; a failure is
// printed, and the report has no scale section.
func runScale(ctx context.Context, env *bench.Env, n int) *bench.ScaleResult {
	if n <= 0 {
		return nil
	}
	r, err := bench.Scale(ctx, env, bench.ScaleOptions{Locks: n}, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "scale:", err)
		return nil
	}
	return &r
}

// write writes bench.md (md, then its hand-written part), bench.svg and,
// if the run had fleet cells, fleet.svg to out; it prints md when out is
// empty.
func write(out string, rep bench.Report, md, fleetSVG string) error {
	if out == "" {
		fmt.Print(md)
		return nil
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	if err := writeBench(filepath.Join(out, "bench.md"), md); err != nil {
		return err
	}
	fmt.Fprintln(os.Stderr, "lockbench: bench.md rewritten; the README and docs/ quote its figures: run `go test ./doccheck -run TestFigures` (-update rewrites them) and read the diff")
	if fleetSVG != "" {
		if err := os.WriteFile(filepath.Join(out, "fleet.svg"), []byte(fleetSVG), 0o644); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(out, "bench.svg"), []byte(rep.SVG()), 0o644)
}

// newCells runs the guard, the etcd auth cells and the Redis server-cost
// report (on the fleet cells of the run, if any) and returns their
// sections. With -guard-fail a regression returns errRegression with the
// sections, so that the caller writes them before it fails.
func newCells(ctx context.Context, env *bench.Env, cat *bench.Catalog, fleet []bench.FleetCell, g guardFlags, quick bool, command string) (string, error) {
	guardMD, guardErr := guard(ctx, cat, g, quick, command)
	if guardErr != nil && !errors.Is(guardErr, errRegression) {
		return "", guardErr
	}
	authMD, err := etcdAuth(ctx, env, quick, command)
	if err != nil {
		return "", err
	}
	costMD, err := serverCost(ctx, env, cat, fleet, command)
	if err != nil {
		return "", err
	}
	return guardMD + authMD + costMD, guardErr
}

// binarySize measures bench/size's two binaries (the package directory is
// ./size: lockbench runs in the bench module's directory) and returns the
// section of bench.md.
func binarySize(ctx context.Context, command string) (string, error) {
	s, err := size.Measure(ctx, "size")
	if err != nil {
		return "", fmt.Errorf("binary size (run lockbench from the bench directory): %w", err)
	}
	return bench.SizeMarkdown(s, command), nil
}

// runRedlock compares lock4go's Redlock with one master and with redsync on
// three masters of their own, and returns the section of bench.md.
func runRedlock(ctx context.Context, plan bench.Plan, command string) (md string, err error) {
	const masters, waiters = 3, 64
	env, err := bench.StartRedlock(masters)
	if err != nil {
		return "", err
	}
	defer func() { err = errors.Join(err, env.Close()) }()
	rows, err := bench.Redlock(ctx, env, plan, waiters, os.Stderr)
	if err != nil {
		return "", err
	}
	return bench.RedlockMarkdown(rows, masters, waiters, command), nil
}

// fleetOptions are the fleet cells' options: the published ones, or short
// runs at P = 1 and 4 for a smoke test.
func fleetOptions(quick bool) bench.FleetOptions {
	o := bench.FleetOptions{ManyKeys: len(fleetProcs) == 0, Backends: fleetBackends, Subjects: fleetSubjects, Procs: fleetProcs}
	if quick {
		o.Procs, o.Duration = []int{1, 4}, time.Second
	}
	return o
}

// fleetBackends, fleetSubjects and fleetProcs are the lists of
// -fleet-backends, -fleet-subjects and -fleet-procs.
var (
	fleetBackends []bench.Backend
	fleetSubjects []string
	fleetProcs    []int
)

// runFleet runs only the fleet cells and writes fleet.md to out (or prints
// it).
func runFleet(out string, quick bool) (err error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	env, err := bench.Start()
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, env.Close()) }()
	fo := fleetOptions(quick)
	cells, err := bench.Fleet(ctx, env, fo, os.Stderr)
	if err != nil {
		return err
	}
	md := bench.FleetMarkdown(cells, fo, "cd bench && go run ./cmd/lockbench -fleet-only -out ../docs")
	if out == "" {
		fmt.Print(md)
		return nil
	}
	if err := os.WriteFile(filepath.Join(out, "fleet.svg"), []byte(bench.FleetSVG(cells)), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, "fleet.md"), []byte("# lock4go fleet benchmarks\n\n"+md+"![Redis fleets](fleet.svg)\n"), 0o644)
}
