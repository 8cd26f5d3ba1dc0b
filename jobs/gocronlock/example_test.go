package gocronlock_test

import (
	"context"
	"log"

	"github.com/go-co-op/gocron/v2"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/jobs"
	"github.com/lock4go/lock4go/jobs/gocronlock"
)

// A gocron scheduler whose jobs run once across the fleet (a Locker), or
// only on the instance that leads (an Elector).
func Example() {
	var (
		r   *jobs.Runner      // jobs.New over the fleet's Template
		tpl *lock4go.Template // the same Template
	)
	s, err := gocron.NewScheduler(gocron.WithDistributedLocker(gocronlock.NewLocker(r)))
	if err != nil {
		log.Fatal(err)
	}
	_ = s
	elector := gocronlock.NewElector(context.Background(), tpl, "scheduler-leader")
	defer elector.Close()
	if _, err := gocron.NewScheduler(gocron.WithDistributedElector(elector)); err != nil {
		log.Fatal(err)
	}
}
