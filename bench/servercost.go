package bench

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"time"
)

// CostCell is what one subject's uncontended Lock+Release pairs cost one
// redis-server.
type CostCell struct {
	Subject string
	Pairs   int
	// Per pair: commands the server counted (INFO commandstats, commands
	// inside scripts included) and its CPU (INFO cpu) in µs.
	Cmds, CPUMicros float64
	OpsSec          float64
	Pair            Dist // one Lock+Release
}

// CostOptions shape the uncontended server-cost cells.
type CostOptions struct {
	// Rounds of Block pairs per subject, the subjects in a new random
	// order each round. Zero means 10 rounds of 200 pairs.
	Rounds, Block int
}

func (o CostOptions) withDefaults() CostOptions {
	if o.Rounds == 0 {
		o.Rounds = 10
	}
	if o.Block == 0 {
		o.Block = 200
	}
	return o
}

// costSubjects are the subjects of the uncontended server-cost cells, in
// report order.
var costSubjects = []string{"raw redis", fencedName, "bsm/redislock", "redsync (1 node)", "rueidislock", "lock4go/redis"}

// UncontendedCost measures what uncontended Lock+Release pairs of each
// subject cost env's redis-server: INFO commandstats and INFO cpu are read
// around each block of pairs, so that each subject's figure holds only its
// own pairs, and the blocks of all subjects alternate in a new random order
// each round, so that a change in the machine's load falls on all alike.
func UncontendedCost(ctx context.Context, env *Env, subjects []*Subject, o CostOptions) ([]CostCell, error) {
	o = o.withDefaults()
	cells := make([]CostCell, len(subjects))
	lockers := make([]Locker, len(subjects))
	lats := make([][]time.Duration, len(subjects))
	for i, s := range subjects {
		l, err := s.Contender(0)
		if err != nil {
			return nil, err
		}
		lockers[i], cells[i].Subject = l, s.Name
		for range 20 { // warm up: connections, scripts
			if err := pair(ctx, l, benchKey(s, "cost")); err != nil {
				return nil, fmt.Errorf("%s: warm-up: %w", s.Name, err)
			}
		}
	}
	used := make([]backendUse, len(subjects))
	for range o.Rounds {
		for _, i := range rand.Perm(len(subjects)) {
			before, err := readBackend(ctx, env, Redis)
			if err != nil {
				return nil, err
			}
			for range o.Block {
				t0 := time.Now()
				if err := pair(ctx, lockers[i], benchKey(subjects[i], "cost")); err != nil {
					return nil, fmt.Errorf("%s: %w", subjects[i].Name, err)
				}
				lats[i] = append(lats[i], time.Since(t0))
			}
			after, err := readBackend(ctx, env, Redis)
			if err != nil {
				return nil, err
			}
			u := after.minus(before)
			used[i].cmds += u.cmds
			used[i].cpu += u.cpu
		}
	}
	for i := range cells {
		n := float64(len(lats[i]))
		cells[i].Pairs = len(lats[i])
		cells[i].Cmds = float64(used[i].cmds) / n
		cells[i].CPUMicros = float64(used[i].cpu.Nanoseconds()) / 1e3 / n
		cells[i].Pair = distOf(lats[i])
		cells[i].OpsSec = n / sum(lats[i]).Seconds()
	}
	return cells, nil
}

// costFleetProcs are the process counts of the server-cost report's
// one-key cells.
var costFleetProcs = []int{1, 4, 16, 32, 64}

// costFleetSubjects are the fleet subjects of the server-cost report.
var costFleetSubjects = []string{"lock4go/redis", fairFloorName, "Lock4j-style poll"}

// ServerCost runs every cell of the Redis server-cost report on env's
// redis-server: the uncontended pairs of cat's subjects named in
// costSubjects, then (when fleet is nil) the fleet cells of lock4go and the
// poller: one hot key over P = 1, 4, 16, 32, 64 worker processes (32 is 64
// goroutines as 32 processes of 2) and 10 000 keys
// over 16. A full run passes the fleet cells it already has.
func ServerCost(ctx context.Context, env *Env, cat *Catalog, fleet []FleetCell, log io.Writer) (CostReport, error) {
	var subjects []*Subject
	for _, name := range costSubjects {
		if s := cat.ByName(name); s != nil {
			subjects = append(subjects, s)
		}
	}
	solo, err := UncontendedCost(ctx, env, subjects, CostOptions{})
	if err != nil {
		return CostReport{}, err
	}
	for _, c := range solo {
		fmt.Fprintf(log, "server cost: %-18s uncontended %.1f cmds, %.1f µs CPU per pair, p50 %v\n", c.Subject, c.Cmds, c.CPUMicros, c.Pair.P50)
	}
	if fleet == nil {
		fleet, err = Fleet(ctx, env, FleetOptions{Backends: []Backend{Redis}, Subjects: costFleetSubjects, ManyKeys: true, Procs: costFleetProcs}, log)
		if err != nil {
			return CostReport{}, err
		}
	}
	r := CostReport{Uncontended: solo}
	for _, c := range fleet {
		if c.Backend == Redis && slices.Contains(costFleetSubjects, c.Subject) {
			r.Fleet = append(r.Fleet, c)
		}
	}
	return r, nil
}

// CostReport is the Redis server-cost report's figures.
type CostReport struct {
	Uncontended []CostCell
	Fleet       []FleetCell // lock4go and the poller, one key and many keys
}
