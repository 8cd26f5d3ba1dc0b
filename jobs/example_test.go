package jobs_test

import (
	"context"
	"fmt"
	"time"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executors/memory"
	"github.com/lock4go/lock4go/jobs"
)

// Every instance of a fleet calls Run at each tick of the job; one runs
// it, the others skip it. Here the only instance runs it.
func Example() {
	e := memory.New(memory.Options{})
	defer e.Close()
	tpl, err := lock4go.New(lock4go.Config{}, e)
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := jobs.New(tpl, jobs.Config{})
	if err != nil {
		fmt.Println(err)
		return
	}
	res := r.Run(context.Background(), "nightly-report", func(ctx context.Context) error {
		fmt.Println("writing the report")
		return nil
	}, jobs.AtMostFor(time.Minute))
	fmt.Println(res.Outcome)
	// Output:
	// writing the report
	// ran
}

// A process that shuts down stops its scheduler, then drains its Runner,
// then closes its executors: on etcd and ZooKeeper, which keep a job that
// returned until its at-least-for end only while this process does,
// closing first would free the job at once. The memory executor, like
// Redis and PostgreSQL, keeps it by itself: Drain returns at once.
func ExampleRunner_Drain() {
	e := memory.New(memory.Options{})
	tpl, err := lock4go.New(lock4go.Config{}, e)
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := jobs.New(tpl, jobs.Config{AtLeastFor: time.Minute})
	if err != nil {
		fmt.Println(err)
		return
	}
	res := r.Run(context.Background(), "nightly-report", func(context.Context) error { return nil })
	fmt.Println(res.Outcome)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	fmt.Println(r.Drain(ctx))
	fmt.Println(e.Close())
	// Output:
	// ran
	// <nil>
	// <nil>
}
