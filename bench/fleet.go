package bench

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"time"
)

// FleetOptions shape the fleet measurement: real OS processes contending
// on one key, or on many.
type FleetOptions struct {
	// Procs are the process counts of the one-key cells. Zero means 1, 4,
	// 16, 64.
	Procs []int
	// Goroutines is the total over a cell's processes. Zero means 64.
	Goroutines int
	// Duration is each cell's run. Zero means 4s.
	Duration time.Duration
	// Hold is the time inside the lock. Zero means 500µs.
	Hold time.Duration
	// Backends to measure. Nil means all four.
	Backends []Backend
	// Subjects, if set, limits the cells to these subject names.
	Subjects []string
	// ManyKeys adds the many-keys cells: 10 000 keys, 256 goroutines over
	// 16 processes, uniform and zipf(1.1).
	ManyKeys bool
}

func (o FleetOptions) withDefaults() FleetOptions {
	if o.Procs == nil {
		o.Procs = []int{1, 4, 16, 64}
	}
	if o.Goroutines == 0 {
		o.Goroutines = 64
	}
	if o.Duration == 0 {
		o.Duration = 4 * time.Second
	}
	if o.Hold == 0 {
		o.Hold = 500 * time.Microsecond
	}
	if o.Backends == nil {
		o.Backends = []Backend{Redis, Etcd, ZooKeeper, Postgres, MySQL}
	}
	return o
}

// FleetCell is one subject at one shape.
type FleetCell struct {
	Subject    string
	Backend    Backend
	Procs      int
	Goroutines int
	Keys       int
	Zipf       bool

	Acquired   int
	OpsSec     float64
	Wait       Dist // Lock call to acquired
	MinPerG    int  // acquisitions of the least served goroutine
	MaxPerG    int
	Starved    int  // goroutines with no acquisition
	Handoff    Dist // one key: release begun to the next holder acquiring
	Violations int  // one key: a holder acquired before the previous began releasing
	Errors     int
	Timeouts   int
	FirstErr   string

	// Per acquisition: server-side commands (Redis commandstats, script
	// internals included; etcd gRPC messages received; ZooKeeper packets),
	// commands or requests sent by the workers' clients (Redis, etcd), and
	// server CPU in µs.
	ServerCmds, Sent, CPUMicros float64
	// ByCmd is ServerCmds by command name, and the server's µs inside each
	// command by "usec:" and its name (Redis only).
	ByCmd map[string]float64
}

// Fleet runs the fleet cells on env's servers, each with real worker
// processes (this binary re-executed: see [FleetWorkerMain]).
func Fleet(ctx context.Context, env *Env, o FleetOptions, log io.Writer) ([]FleetCell, error) {
	o = o.withDefaults()
	var cells []FleetCell
	run := func(c FleetCell) error {
		if len(o.Subjects) > 0 && !slices.Contains(o.Subjects, c.Subject) {
			return nil
		}
		r, err := fleetCell(ctx, env, c, o)
		if err != nil {
			return fmt.Errorf("fleet %s P=%d keys=%d: %w", c.Subject, c.Procs, c.Keys, err)
		}
		fmt.Fprintf(log, "fleet: %s P=%d keys=%d zipf=%v: %.0f acq/s, wait p99 %v max %v, per goroutine %d–%d, hand-off p50 %v p99 %v, %.1f server cmds, %.1f sent, %.0f µs CPU per acquisition\n",
			r.Subject, r.Procs, r.Keys, r.Zipf, r.OpsSec, r.Wait.P99, r.Wait.Max, r.MinPerG, r.MaxPerG, r.Handoff.P50, r.Handoff.P99, r.ServerCmds, r.Sent, r.CPUMicros)
		cells = append(cells, r)
		return nil
	}
	// The subjects of a backend take turns at each P, in a new random
	// order, so that a change in the machine's load falls on all alike;
	// the cells are then put back in report order (subject, then P).
	for _, b := range o.Backends {
		from := len(cells)
		subjects := fleetSubjects[b]
		for _, p := range o.Procs {
			for _, i := range rand.Perm(len(subjects)) {
				if err := run(FleetCell{Subject: subjects[i], Backend: b, Procs: p, Goroutines: o.Goroutines, Keys: 1}); err != nil {
					return cells, err
				}
			}
		}
		slices.SortStableFunc(cells[from:], func(x, y FleetCell) int {
			return cmp.Or(cmp.Compare(slices.Index(subjects, x.Subject), slices.Index(subjects, y.Subject)),
				cmp.Compare(slices.Index(o.Procs, x.Procs), slices.Index(o.Procs, y.Procs)))
		})
	}
	if o.ManyKeys {
		for _, b := range o.Backends {
			subjects := []string{"lock4go/" + string(b)}
			if b == Redis {
				subjects = append(subjects, "Lock4j-style poll")
			}
			for _, s := range subjects {
				for _, zipf := range []bool{false, true} {
					if err := run(FleetCell{Subject: s, Backend: b, Procs: 16, Goroutines: 256, Keys: 10_000, Zipf: zipf}); err != nil {
						return cells, err
					}
				}
			}
		}
	}
	return cells, nil
}

// fleetProc is one running worker.
type fleetProc struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

// fleetCell runs one cell: starts its workers, waits until all are ready,
// reads the backend's counters, starts them together, collects their
// reports and reads the counters again.
func fleetCell(ctx context.Context, env *Env, c FleetCell, o FleetOptions) (FleetCell, error) {
	self, err := os.Executable()
	if err != nil {
		return c, err
	}
	prefix := fmt.Sprintf("lockbench:fleet:%d:", time.Now().UnixNano())
	procs := make([]*fleetProc, 0, c.Procs)
	defer func() {
		for _, p := range procs {
			_ = p.in.Close()
			_ = p.cmd.Wait()
		}
	}()
	for i := range c.Procs {
		g := c.Goroutines / c.Procs
		if i < c.Goroutines%c.Procs {
			g++
		}
		job := fleetJob{
			RedisAddr: env.RedisAddr, EtcdAddr: env.EtcdAddr, ZooKeeperAddr: env.ZooKeeperAddr, PostgresAddr: env.PostgresAddr, MySQLAddr: env.MySQLAddr,
			Subject: c.Subject, Goroutines: g, Keys: c.Keys, Zipf: c.Zipf, KeyPrefix: prefix,
			Hold: o.Hold, Duration: o.Duration, Timeout: 3 * time.Second, Seed: uint64(i + 1),
		}
		p, err := startFleetProc(ctx, self, job)
		if err != nil {
			return c, err
		}
		procs = append(procs, p)
	}
	for i, p := range procs {
		if line, err := p.out.ReadString('\n'); err != nil || line != "ready\n" {
			return c, fmt.Errorf("worker %d not ready: %q, %v", i, line, err)
		}
	}
	before, err := readBackend(ctx, env, c.Backend)
	if err != nil {
		return c, err
	}
	start := time.Now()
	for _, p := range procs {
		if _, err := io.WriteString(p.in, "go\n"); err != nil {
			return c, err
		}
	}
	reps := make([]fleetReport, len(procs))
	for i, p := range procs {
		if err := json.NewDecoder(p.out).Decode(&reps[i]); err != nil {
			return c, fmt.Errorf("worker %d report: %w", i, err)
		}
	}
	elapsed := time.Since(start)
	after, err := readBackend(ctx, env, c.Backend)
	if err != nil {
		return c, err
	}
	return summarize(c, reps, after.minus(before), min(elapsed, o.Duration)), nil
}

// startFleetProc starts a worker and hands it job.
func startFleetProc(ctx context.Context, self string, job fleetJob) (*fleetProc, error) {
	cmd := exec.CommandContext(ctx, self)
	cmd.Env = append(os.Environ(), fleetWorkerEnv+"=1")
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	b, _ := json.Marshal(job)
	if _, err := in.Write(append(b, '\n')); err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, err
	}
	return &fleetProc{cmd: cmd, in: in, out: bufio.NewReader(out)}, nil
}

// summarize merges the workers' reports into c.
func summarize(c FleetCell, reps []fleetReport, used backendUse, elapsed time.Duration) FleetCell {
	var waits []time.Duration
	var spans [][2]int64
	first := true
	var sent int64
	for _, r := range reps {
		for _, w := range r.Waits {
			waits = append(waits, time.Duration(w))
		}
		spans = append(spans, r.Spans...)
		for _, n := range r.PerG {
			if first {
				c.MinPerG, c.MaxPerG, first = n, n, false
			}
			c.MinPerG, c.MaxPerG = min(c.MinPerG, n), max(c.MaxPerG, n)
			if n == 0 {
				c.Starved++
			}
		}
		c.Errors += r.Errors
		c.Timeouts += r.Timeouts
		if c.FirstErr == "" {
			c.FirstErr = r.FirstErr
		}
		sent += r.Sent
	}
	c.Acquired = len(waits)
	c.OpsSec = float64(c.Acquired) / elapsed.Seconds()
	c.Wait = distOf(waits)
	slices.SortFunc(spans, func(a, b [2]int64) int { return int(a[0] - b[0]) })
	var handoffs []time.Duration
	for i := 1; i < len(spans); i++ {
		d := spans[i][0] - spans[i-1][1]
		if d < 0 {
			c.Violations++
			continue
		}
		handoffs = append(handoffs, time.Duration(d))
	}
	c.Handoff = distOf(handoffs)
	if c.Acquired > 0 {
		n := float64(c.Acquired)
		c.ServerCmds = float64(used.cmds) / n
		c.Sent = float64(sent) / n
		c.CPUMicros = float64(used.cpu.Microseconds()) / n
		for k, v := range used.byCmd {
			if c.ByCmd == nil {
				c.ByCmd = map[string]float64{}
			}
			c.ByCmd[k] = float64(v) / n
		}
	}
	return c
}

// errNoServerPID: the Env has no server process to read CPU from.
var errNoServerPID = errors.New("bench: no server process")
