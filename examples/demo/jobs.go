package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/go-co-op/gocron/v2"

	"github.com/lock4go/lock4go/jobs"
	"github.com/lock4go/lock4go/jobs/gocronlock"
)

// jobTicks is how many seconds the scheduled-job section runs.
const jobTicks = 5

// showJobs gives each of the 3 instances a gocron scheduler that runs one
// job every second, through a gocronlock.Locker with AtLeastFor 500ms,
// for jobTicks seconds, and reports how often the job ran: once per tick
// across the instances, not once per instance. It fails if any tick ran
// more than once.
func showJobs(ctx context.Context, cfg config, svcs []*service) error {
	var mu sync.Mutex
	ran := map[int64][]int{} // tick (a second) -> the instances that ran it
	first := time.Now().Truncate(time.Second).Add(2 * time.Second)
	var scheds []gocron.Scheduler
	defer func() {
		for _, s := range scheds {
			_ = s.Shutdown()
		}
	}()
	for i, s := range svcs {
		r, err := jobs.New(s.tpl, jobs.Config{AtMostFor: 30 * time.Second, AtLeastFor: 500 * time.Millisecond})
		if err != nil {
			return err
		}
		sched, err := gocron.NewScheduler(gocron.WithDistributedLocker(gocronlock.NewLocker(r)))
		if err != nil {
			return err
		}
		scheds = append(scheds, sched)
		task := func() {
			tick := time.Now().Add(500 * time.Millisecond).Truncate(time.Second).Unix()
			mu.Lock()
			ran[tick] = append(ran[tick], i+1)
			mu.Unlock()
		}
		if _, err := sched.NewJob(gocron.DurationJob(time.Second), gocron.NewTask(task), gocron.WithName("demo-settlement"),
			gocron.WithStartAt(gocron.WithStartDateTime(first)), gocron.WithLimitedRuns(jobTicks)); err != nil {
			return err
		}
		sched.Start()
	}
	select {
	case <-time.After(time.Until(first.Add(jobTicks*time.Second - 300*time.Millisecond))):
	case <-ctx.Done():
		return ctx.Err()
	}
	return reportJobs(cfg, ran, &mu)
}

// reportJobs prints the scheduled-job section's result.
func reportJobs(cfg config, ran map[int64][]int, mu *sync.Mutex) error {
	mu.Lock()
	defer mu.Unlock()
	runs, twice := 0, 0
	for _, who := range ran {
		runs += len(who)
		if len(who) > 1 {
			twice++
		}
	}
	w := cfg.out
	fmt.Fprintf(w, "\nScheduled job: each of the 3 instances schedules \"demo-settlement\" every second for %d seconds\n", jobTicks)
	fmt.Fprintln(w, "(gocron v2 with a gocronlock.Locker, AtLeastFor 500ms). One instance runs each tick; the others skip it.")
	fmt.Fprintf(w, "| %-40s | %14v |\n|%s|%s|\n", "scheduled job", "", "------------------------------------------", "----------------")
	fmt.Fprintf(w, "| %-40s | %14d |\n", "ticks scheduled (3 instances x seconds)", 3*jobTicks)
	fmt.Fprintf(w, "| %-40s | %14d |\n", "runs", runs)
	fmt.Fprintf(w, "| %-40s | %14d |\n", "ticks run more than once", twice)
	if twice > 0 || runs != jobTicks {
		return fmt.Errorf("scheduled job: %d runs for %d ticks (%d ticks ran more than once), want %d", runs, jobTicks, twice, jobTicks)
	}
	fmt.Fprintf(w, "It ran %d times, not %d.\n", runs, 3*jobTicks)
	return nil
}
