package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log"
	"log/slog"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/redis"
)

// lock4goVariants are the executor's Acquire+Release and the Template's
// Lock+Release, each with a client of its own.
func lock4goVariants(addr string) []variant {
	client := func() *goredis.Client {
		return goredis.NewClient(&goredis.Options{Addr: addr, ContextTimeoutEnabled: true})
	}
	quiet := slog.New(slog.DiscardHandler)
	e, err := redis.New(client(), redis.Options{Logger: quiet})
	if err != nil {
		log.Fatal(err)
	}
	e2, err := redis.New(client(), redis.Options{Logger: quiet})
	if err != nil {
		log.Fatal(err)
	}
	tpl, err := lock4go.New(lock4go.Config{Logger: quiet}, e2)
	if err != nil {
		log.Fatal(err)
	}
	return []variant{
		{name: "executor", fn: func(ctx context.Context, key string) error {
			var b [16]byte
			_, _ = rand.Read(b[:])
			l, err := e.Acquire(ctx, executor.Request{Key: key, Owner: hex.EncodeToString(b[:]), TTL: 30 * time.Second, Wait: true})
			if err != nil {
				return err
			}
			return l.Release(ctx)
		}},
		{name: "template", fn: func(ctx context.Context, key string) error {
			l, err := tpl.Lock(ctx, key)
			if err != nil {
				return err
			}
			return l.Release(ctx)
		}},
	}
}
