package redlock_test

import (
	"context"
	"log"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executors/redlock"
)

// A Template over three independent masters. (Not run: it needs the
// masters.)
func ExampleNew() {
	var masters []goredis.UniversalClient
	for _, addr := range []string{"10.0.0.1:6379", "10.0.0.2:6379", "10.0.0.3:6379"} {
		masters = append(masters, goredis.NewClient(&goredis.Options{Addr: addr, ContextTimeoutEnabled: true}))
	}
	rl, err := redlock.New(masters, redlock.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer rl.Close()
	tpl, err := lock4go.New(lock4go.Config{}, rl)
	if err != nil {
		log.Fatal(err)
	}
	err = tpl.Do(context.Background(), "payout:2026-11", func(ctx context.Context) error {
		// Pass the token with every write; the store refuses older ones.
		token := lock4go.LockFrom(ctx, "payout:2026-11").Token()
		_ = token
		return nil
	}, lock4go.WithAcquireTimeout(3*time.Second))
	if err != nil {
		log.Fatal(err)
	}
}
