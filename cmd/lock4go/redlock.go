package main

import (
	"cmp"
	"context"
	"log/slog"
	"strings"
	"sync"

	goredis "github.com/redis/go-redis/v9"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/redlock"
)

// dialRedlock connects to every master of --redlock (Redis URLs), checks
// that a majority answers PING (a minority may be down: that is when the
// tool is needed), and returns a Redlock executor over them all.
func dialRedlock(ctx context.Context, c *connFlags) (*backend, error) {
	urls := splitList(c.redlock)
	if len(urls) < 3 {
		return nil, usagef("--redlock %q: %d masters, need at least 3 comma-separated Redis URLs", c.redlock, len(urls))
	}
	var clients []goredis.UniversalClient
	var addrs []string
	closeAll := func() {
		for _, cl := range clients {
			_ = cl.Close()
		}
	}
	for _, u := range urls {
		cl, opt, err := c.newRedisClient("--redlock", u)
		if err != nil {
			closeAll()
			return nil, err
		}
		clients = append(clients, cl)
		addrs = append(addrs, opt.Addr)
	}
	down, first := pingAll(ctx, clients, addrs)
	if len(down) > (len(clients)-1)/2 {
		closeAll()
		return nil, connectErr(ctx, "redlock", down, c.timeout, first)
	}
	e, err := redlock.New(clients, redlock.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		closeAll()
		return nil, err
	}
	return &backend{kind: "redlock", addr: strings.Join(addrs, ","), exec: e, breakNote: redlockNote, close: func() {
		_ = e.Close()
		closeAll()
	}}, nil
}

// pingAll pings every client at once and returns the addresses of those
// that did not answer, and the first error.
func pingAll(ctx context.Context, clients []goredis.UniversalClient, addrs []string) (down []string, first error) {
	errs := make([]error, len(clients))
	var wg sync.WaitGroup
	for i, cl := range clients {
		wg.Go(func() { errs[i] = cl.Ping(ctx).Err() })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			down = append(down, addrs[i])
			first = cmp.Or(first, err)
		}
	}
	return down, first
}

// redlockNote: as on Redis, renewals find out, once a majority is gone.
func redlockNote(context.Context, string, executor.Holder) string {
	return "a lock4go holder notices at its next renewal (within a third of its lease), which finds fewer than a majority of masters holding it; one with a fixed lease (WithExpire) is not told and runs on until it releases."
}
