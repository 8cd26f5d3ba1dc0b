package redis_test

import (
	"errors"
	"testing"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/redis"
	"github.com/lock4go/lock4go/internal/testserver"
	"github.com/lock4go/lock4go/internal/testwait"
)

// TestReplicas covers Options.Replicas on a master with one replica: an
// acquisition waits for the replica's acknowledgement (and reports what
// that costs); once the replica's link is cut, an acquisition that took the
// key fails with ErrBackend and leaves the key free.
func TestReplicas(t *testing.T) {
	testserver.Check(t, srvErr)
	s, err := testserver.StartRedisSentinel()
	testserver.Check(t, err)
	t.Cleanup(func() { _ = s.Stop() })
	m, replica := s.Redis[0], s.Redis[1]
	admin := newClient(t, m.Addr())
	plain := newExecutor(t, newClient(t, m.Addr(), ctxTimeouts), redis.Options{})
	waiting := newExecutor(t, newClient(t, m.Addr(), ctxTimeouts), redis.Options{Replicas: 1})
	key := uniq(t, "replicas:")
	meanPair(t, plain, key)
	meanPair(t, waiting, key)
	a, b := meanPair(t, plain, key), meanPair(t, waiting, key)
	t.Logf("Lock+Release on a master with one replica: %v without Replicas, %v with Replicas 1 (%.2fx)", a, b, float64(b)/float64(a))

	rc := newClient(t, replica.Addr())
	for _, cmd := range [][]any{
		{"CONFIG", "SET", "masteruser", "lock4go-no-such-user"},
		{"CONFIG", "SET", "masterauth", "x"},
		{"CLIENT", "KILL", "TYPE", "master"},
	} {
		if err := rc.Do(t.Context(), cmd...).Err(); err != nil {
			t.Fatalf("%v: %v", cmd, err)
		}
	}
	if !testwait.Until(10*time.Second, func() bool { return admin.Do(t.Context(), "WAIT", 1, 10).Val() == int64(0) }) {
		t.Fatal("the replica still acknowledges")
	}
	_, err = waiting.Acquire(t.Context(), req(key, time.Minute))
	if !errors.Is(err, executor.ErrBackend) {
		t.Fatalf("Acquire with the replica's link cut = %v, want ErrBackend", err)
	}
	if n := admin.Exists(t.Context(), key).Val(); n != 0 {
		t.Fatalf("the key stays held after an acquisition that no replica acknowledged: %q", admin.Get(t.Context(), key).Val())
	}
	if _, err := redis.New(newClusterClient(t), redis.Options{Replicas: 1}); !errors.Is(err, executor.ErrInvalidConfig) {
		t.Fatalf("New(ClusterClient, Replicas 1) = %v, want ErrInvalidConfig", err)
	}
}

// meanPair returns the mean time of 200 Acquire+Release pairs of key
// through e.
func meanPair(t *testing.T, e *redis.Executor, key string) time.Duration {
	t.Helper()
	const n = 200
	start := time.Now()
	for range n {
		l, err := e.Acquire(t.Context(), req(key, time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Release(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	return time.Since(start) / n
}
