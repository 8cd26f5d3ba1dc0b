package redis_test

import (
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executor/executortest"
	"github.com/lock4go/lock4go/executors/redis"
)

func TestConformance(t *testing.T) {
	s := server(t)
	for _, tc := range []struct {
		name   string
		opts   []clientOpt
		strict bool
	}{
		{"ContextTimeoutEnabled", []clientOpt{ctxTimeouts}, false},
		{"ContextTimeoutDisabled", nil, false}, // calls bounded by the executor's own goroutine
		{"StrictFIFO", []clientOpt{ctxTimeouts}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			executortest.Run(t, func(t *testing.T) executor.Executor {
				return newExecutor(t, newClient(t, s.Addr(), tc.opts...), redis.Options{StrictFIFO: tc.strict})
			}, executortest.Options{ShortTTL: 300 * time.Millisecond, SharedTokensUnkept: true})
		})
	}
}

func TestConformance_cluster(t *testing.T) {
	c := redisCluster(t)
	executortest.Run(t, func(t *testing.T) executor.Executor {
		client := goredis.NewClusterClient(&goredis.ClusterOptions{Addrs: c.Addrs(), ContextTimeoutEnabled: true})
		t.Cleanup(func() { _ = client.Close() })
		return newExecutor(t, client, redis.Options{})
	}, executortest.Options{ShortTTL: 300 * time.Millisecond, SharedTokensUnkept: true})
}
