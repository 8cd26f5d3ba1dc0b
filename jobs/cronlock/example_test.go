package cronlock_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/lock4go/lock4go/jobs"
	"github.com/lock4go/lock4go/jobs/cronlock"
)

// Jobs of a cron.Cron run once across the fleet: a job as it is, wrapped,
// or a function that gets the lock in its context.
func Example() {
	var r *jobs.Runner // jobs.New over the fleet's Template
	c := cron.New()
	report := cron.FuncJob(func() { fmt.Println("report") })
	if _, err := c.AddJob("@every 1m", cronlock.Wrap(r, "report", jobs.AtMostFor(time.Minute))(report)); err != nil {
		log.Fatal(err)
	}
	if _, err := c.AddJob("@hourly", cronlock.Func(r, "cleanup", func(ctx context.Context) error {
		return nil // ctx is cancelled if the lock is lost
	})); err != nil {
		log.Fatal(err)
	}
	_ = c // c.Start() in the service
}
