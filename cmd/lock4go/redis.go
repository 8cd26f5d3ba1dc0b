package main

import (
	"context"
	"log/slog"

	goredis "github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/logging"

	"github.com/lock4go/lock4go/executor"
	redisexec "github.com/lock4go/lock4go/executors/redis"
)

func init() {
	// go-redis logs dial failures itself; the commands report them.
	goredis.SetLogger(&logging.VoidLogger{})
}

// dialRedis connects to --redis and checks it answers PING.
func dialRedis(ctx context.Context, c *connFlags) (*backend, error) {
	client, opt, err := c.redisClient(ctx, "--redis", c.redis)
	if err != nil {
		return nil, err
	}
	e, err := redisexec.New(client, redisexec.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		_ = client.Close()
		return nil, err
	}
	return &backend{kind: "redis", addr: opt.Addr, exec: e, breakNote: redisNote, close: func() {
		_ = e.Close()
		_ = client.Close()
	}}, nil
}

// redisClient connects to the Redis at url (the value of flag) and checks
// it answers PING.
func (c *connFlags) redisClient(ctx context.Context, flag, url string) (*goredis.Client, *goredis.Options, error) {
	client, opt, err := c.newRedisClient(flag, url)
	if err != nil {
		return nil, nil, err
	}
	if err := client.Ping(ctx).Err(); err != nil {
		_ = client.Close()
		return nil, nil, connectErr(ctx, "redis", []string{opt.Addr}, c.timeout, err)
	}
	return client, opt, nil
}

// newRedisClient returns a client of the Redis at url (the value of flag),
// with the connection flags applied.
func (c *connFlags) newRedisClient(flag, url string) (*goredis.Client, *goredis.Options, error) {
	opt, err := goredis.ParseURL(redisURL(url))
	if err != nil {
		return nil, nil, usagef("%s %q: %v", flag, url, err)
	}
	if opt.TLSConfig, err = c.tlsConfig(opt.TLSConfig); err != nil {
		return nil, nil, err
	}
	opt.DialTimeout = c.timeout
	opt.ReadTimeout = c.timeout
	opt.WriteTimeout = c.timeout
	opt.ContextTimeoutEnabled = true
	opt.DisableIdentity = true // no CLIENT SETINFO round trip
	opt.DialerRetries = 1      // report a refused connection at once
	return goredis.NewClient(opt), opt, nil
}

// redisNote: Redis tells nobody; renewals find out.
func redisNote(context.Context, string, executor.Holder) string {
	return "a lock4go holder notices at its next renewal (within a third of its lease); one with a fixed lease (WithExpire), or a Lock4j holder, is not told and runs on until it releases."
}
