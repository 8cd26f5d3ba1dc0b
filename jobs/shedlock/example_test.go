package shedlock_test

import (
	"log"

	goredis "github.com/redis/go-redis/v9"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/jobs"
	"github.com/lock4go/lock4go/jobs/shedlock"
)

// Go jobs and ShedLock's Java jobs on the same Redis skip each other's
// ticks: the Go side runs its jobs on an executor in ShedLock's layout.
func ExampleNewRedis() {
	client := goredis.NewClient(&goredis.Options{Addr: "127.0.0.1:6379"})
	defer client.Close()
	exec := shedlock.NewRedis(client, shedlock.RedisOptions{Env: "prod"}) // ShedLock's spring.profiles / env
	tpl, err := lock4go.New(lock4go.Config{}, exec)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := jobs.New(tpl, jobs.Config{}); err != nil {
		log.Fatal(err)
	}
}
