package redis_test

import (
	"errors"
	"strconv"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

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
	for _, k := range []string{"{app}:order#1##token", "{app}:order#1##queue", "{app}:order#1##void:" + owner(), "x{a}##void:y"} {
		if _, err := e.Acquire(t.Context(), req(k, time.Minute)); !errors.Is(err, executor.ErrInvalidKey) {
			t.Errorf("Acquire(%q) = %v, want ErrInvalidKey", k, err)
		}
	}
	// Without a hash tag, the same shapes are ordinary keys.
	l, err := e.Acquire(t.Context(), req(uniq(t, "order#1##token"), time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
}

// oldAcquireScript is the acquire script of the versions whose counter of a
// key with a hash tag was "<key>:token": what a process not yet upgraded
// runs.
var oldAcquireScript = goredis.NewScript(`
if redis.call('exists', KEYS[2]) == 1 then
  return -2
end
if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  local token = redis.call('incr', KEYS[3])
  if token == 1 then
    local t = redis.call('time')
    local seed = t[1] .. string.format('%06d', tonumber(t[2]))
    redis.call('set', KEYS[3], seed)
    token = tonumber(seed)
  end
  redis.call('pexpire', KEYS[3], ARGV[3])
  return token
end
return false
`)

// oldAcquire takes key as a process of an earlier version would, releases
// it, and returns the token.
func oldAcquire(t *testing.T, c *goredis.Client, key string) int64 {
	t.Helper()
	o := owner()
	tok, err := oldAcquireScript.Run(t.Context(), c, []string{key, key + ":void:" + o, key + ":token"}, o, 60000, 3600000).Int64()
	if err != nil {
		t.Fatalf("old acquire of %q: %v", key, err)
	}
	c.Del(t.Context(), key)
	return tok
}

// TestExecutor_Acquire_upgrade checks that tokens keep increasing when
// processes of an earlier version, which counted in "<key>:token", and of
// this one take a key with a hash tag in turn.
func TestExecutor_Acquire_upgrade(t *testing.T) {
	s := server(t)
	c := newClient(t, s.Addr())
	e := newExecutor(t, c, redis.Options{})
	key := "{" + uniq(t, "app") + "}:order#1"
	newAcquire := func() int64 {
		t.Helper()
		l, err := e.Acquire(t.Context(), req(key, time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Release(t.Context()); err != nil {
			t.Fatal(err)
		}
		return l.Token()
	}
	// An old counter far above the clock (as after a failover to a server
	// whose clock is behind): the first new token must still exceed it.
	const high = 8_000_000_000_000_000
	c.Set(t.Context(), key+":token", high, time.Hour)
	last := int64(high)
	for i := range 20 {
		var tok int64
		if i%3 == 0 {
			tok = oldAcquire(t, c, key)
		} else {
			tok = newAcquire()
		}
		if tok <= last {
			t.Fatalf("acquisition %d (old version: %v): token %d after %d", i, i%3 == 0, tok, last)
		}
		last = tok
	}
	// The old counter kept its TTL: it ends CounterTTL after the last old
	// acquisition, not after the last new one.
	if ttl := c.PTTL(t.Context(), key+":token").Val(); ttl <= 0 || ttl > time.Hour {
		t.Fatalf("old counter's TTL = %v", ttl)
	}
}

// TestExecutor_Acquire_legacyNotCounter checks that a value at the old
// counter's name that is not a counter (the owner of a lock built there, a
// hash, a number Redis or Lua would misread) is neither used nor changed.
func TestExecutor_Acquire_legacyNotCounter(t *testing.T) {
	s := server(t)
	c := newClient(t, s.Addr())
	e := newExecutor(t, c, redis.Options{})
	start := time.Now()
	for _, v := range []string{owner(), "0123456789012345", "1e17", "-5", "9007199254740993", "99999999999999999999", "8000000000000000.5", "hash"} {
		t.Run(v, func(t *testing.T) {
			key := "{" + uniq(t, "app") + "}:order#1"
			old := key + ":token"
			if v == "hash" {
				c.HSet(t.Context(), old, "owner", 1)
			} else {
				c.Set(t.Context(), old, v, time.Hour)
			}
			l, err := e.Acquire(t.Context(), req(key, time.Minute))
			if err != nil {
				t.Fatal(err)
			}
			defer l.Release(t.Context())
			if lo, hi := start.Add(-time.Minute).UnixMicro(), time.Now().Add(time.Minute).UnixMicro(); l.Token() < lo || l.Token() > hi {
				t.Fatalf("token %d, want the server time in µs (%d..%d)", l.Token(), lo, hi)
			}
			if v == "hash" {
				if got := c.HGet(t.Context(), old, "owner").Val(); got != "1" {
					t.Fatalf("hash at the old counter's name changed: %q", got)
				}
			} else if got := c.Get(t.Context(), old).Val(); got != v {
				t.Fatalf("old counter's name holds %q, want %q untouched", got, v)
			}
		})
	}
	// A small old counter (below the clock) is raised to the new token.
	key := "{" + uniq(t, "app") + "}:order#2"
	c.Set(t.Context(), key+":token", 5, time.Hour)
	l, err := e.Acquire(t.Context(), req(key, time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release(t.Context())
	if got := c.Get(t.Context(), key+":token").Val(); got != strconv.FormatInt(l.Token(), 10) {
		t.Fatalf("old counter = %s, want the token %d", got, l.Token())
	}
}
