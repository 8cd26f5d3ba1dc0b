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
