package redis_test

import (
	"errors"
	"testing"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/redis"
)

// TestExecutor_Acquire_twoRoutes locks the keys that two routes build under
// the prefix "{app}": order 1 of a route with one part, and order 1, item
// "token" of a route with two parts. The second used to be the first one's
// fencing counter: whichever came second failed (INCR of an owner, or SET NX
// over a counter).
func TestExecutor_Acquire_twoRoutes(t *testing.T) {
	s := server(t)
	c := newClient(t, s.Addr())
	e := newExecutor(t, c, redis.Options{})
	for _, first := range []string{"one part", "two parts"} {
		t.Run(first+" first", func(t *testing.T) {
			one := "{" + uniq(t, "app") + "}:order#1" // <prefix>:order#<id>
			two := one + ":token"                     // <prefix>:order#<id>:<item>
			keys := []string{one, two}
			if first == "two parts" {
				keys = []string{two, one}
			}
			for round := range 2 {
				var leases []executor.Lease
				for _, k := range keys {
					l, err := e.Acquire(t.Context(), req(k, time.Minute))
					if err != nil {
						t.Fatalf("round %d: Acquire(%q) = %v", round, k, err)
					}
					leases = append(leases, l)
				}
				for i, l := range leases {
					if err := l.Release(t.Context()); err != nil {
						t.Fatalf("round %d: Release(%q) = %v", round, keys[i], err)
					}
				}
			}
			if n := c.Exists(t.Context(), two).Val(); n != 0 {
				t.Fatalf("%q exists after both locks were released", two)
			}
		})
	}
}

func TestExecutor_Acquire_reservedKey(t *testing.T) {
	s := server(t)
	e := newExecutor(t, newClient(t, s.Addr()), redis.Options{})
	for _, k := range []string{"{app}:order#1##shares", "{app}:order#1##queue", "{app}:order#1##void:" + owner(), "x{a}##void:y"} {
		if _, err := e.Acquire(t.Context(), req(k, time.Minute)); !errors.Is(err, executor.ErrInvalidKey) {
			t.Errorf("Acquire(%q) = %v, want ErrInvalidKey", k, err)
		}
	}
	// Without a hash tag, the same shapes are ordinary keys.
	l, err := e.Acquire(t.Context(), req(uniq(t, "order#1##queue"), time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
}
