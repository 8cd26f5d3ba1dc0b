package redis_test

import (
	"log"

	goredis "github.com/redis/go-redis/v9"

	"github.com/lock4go/lock4go/executors/redis"
)

// The client comes from the caller. With ContextTimeoutEnabled go-redis
// bounds each call by its context's deadline, so the executor calls Redis in
// the caller's goroutine; without it each call is handed to a worker
// goroutine, which makes every Lock and Release slower.
func ExampleNew() {
	client := goredis.NewClient(&goredis.Options{Addr: "localhost:6379", ContextTimeoutEnabled: true})
	defer client.Close()
	exec, err := redis.New(client, redis.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer exec.Close()
	// lock4go.New(lock4go.Config{}, exec) …
}
