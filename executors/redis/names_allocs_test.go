//go:build !race

package redis_test

import (
	"testing"

	"github.com/lock4go/lock4go/executors/redis"
)

// TestReleaseArgs_allocs checks that the names derived from a lock key and
// the lock's value, written on every acquisition and release, cost no
// allocation: they go into the pooled call's own buffers. (Under the race
// detector sync.Pool drops a share of what is put back.)
func TestReleaseArgs_allocs(t *testing.T) {
	for _, k := range []string{"lock4j:order#42", "order:{42}:x", "{app}:order#42", "a}b"} {
		_, build := redis.ReleaseArgs(k, "0123456789abcdef0123456789abcdef", 1764412345678901)
		build()
		if n := testing.AllocsPerRun(100, build); n != 0 {
			t.Errorf("release call of %q: %v allocations, want 0", k, n)
		}
	}
	if args, _ := redis.ReleaseArgs("k", "o", 0); args[len(args)-1] != "o" {
		t.Errorf("release call of a lease known by its owner only: value %q, want the owner", args[len(args)-1])
	}
}
