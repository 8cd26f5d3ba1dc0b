package redis_test

import (
	"strings"
	"testing"

	goredis "github.com/redis/go-redis/v9"

	"github.com/lock4go/lock4go/executors/redis"
)

// slotKeys covers every kind of key derive distinguishes.
var slotKeys = []string{
	"order:42",
	"lock4j:order#42:7",
	"",
	"{",
	"}",
	"{}",
	"{}abc",
	"a}b",
	"a}b{c",
	"a{b",
	"a{}b}",
	"{user1000}.following",
	"foo{}{bar}",
	"foo{{bar}}zap",
	"foo{bar}{zap}",
	"lock4go:order#{42}:x",
	"{app}:order#1",
	"{app}:order#1:token",
	"ключ:日本",
	"x\x00y",
}

func TestKeySlot_vectors(t *testing.T) {
	tests := []struct {
		key  string
		slot int
	}{
		// From the Redis Cluster specification and CLUSTER KEYSLOT.
		{"123456789", 0x31C3},
		{"foo", 12182},
		{"somekey", 11058},
		{"{user1000}.following", 3443},
		{"foo{}{bar}", 8363},    // hashes the whole key
		{"foo{{bar}}zap", 4015}, // hashes "{bar"
		{"foo{bar}{zap}", 5061}, // hashes "bar"
	}
	for _, tc := range tests {
		if got := redis.KeySlot(tc.key); got != tc.slot {
			t.Errorf("KeySlot(%q) = %d, want %d", tc.key, got, tc.slot)
		}
	}
}

func TestSlotTag_coversEverySlot(t *testing.T) {
	for slot := range 16384 {
		tag := redis.SlotTag(slot)
		s := string(tag[:])
		if strings.ContainsAny(s, "{}") {
			t.Fatalf("SlotTag(%d) = %q contains a brace", slot, s)
		}
		if got := redis.KeySlot("{" + s + "}"); got != slot {
			t.Fatalf("SlotTag(%d) = %q, which hashes to %d", slot, s, got)
		}
	}
}

func TestDerivedNames_sameSlot(t *testing.T) {
	const o = "0123abcd"
	for _, k := range slotKeys {
		c, ch, v, q := redis.CounterKey(k), redis.ChannelName(k), redis.VoidKey(k, o), redis.QueueKey(k)
		if c == k || ch == k || v == k || q == k || c == ch || v == c || v == ch || q == c || q == v || q == ch {
			t.Errorf("key %q: counter %q, channel %q, void marker %q, queue %q are not distinct", k, c, ch, v, q)
		}
		if v2 := redis.VoidKey(k, o+"x"); v2 == v {
			t.Errorf("key %q: two owners share the void marker %q", k, v)
		}
		lc, sh := redis.LegacyKey(k), redis.SharesKey(k)
		if gq, gsh, gv, gc, gch, glc := redis.AcquireNames(k, o); gq != q || gsh != sh || gv != v || gc != c || gch != ch || glc != lc {
			t.Errorf("AcquireNames(%q) = %q, %q, %q, %q, %q, %q; want %q, %q, %q, %q, %q, %q", k, gq, gsh, gv, gc, gch, glc, q, sh, v, c, ch, lc)
		}
		if sh == k || sh == q || sh == c || sh == v || sh == ch {
			t.Errorf("key %q: shares %q is not distinct", k, sh)
		}
		tagged := lc != ""
		if redis.ReservedKey(sh) != tagged {
			t.Errorf("key %q: ReservedKey of its shares %q = %v", k, sh, redis.ReservedKey(sh))
		}
		if redis.ReservedKey(k) || redis.ReservedKey(c) != tagged || redis.ReservedKey(v) != tagged || redis.ReservedKey(q) != tagged {
			t.Errorf("key %q: ReservedKey of the key, its counter %q, its void marker %q, its queue %q = %v, %v, %v, %v",
				k, c, v, q, redis.ReservedKey(k), redis.ReservedKey(c), redis.ReservedKey(v), redis.ReservedKey(q))
		}
		for _, n := range []string{c, ch, v, q, lc, sh} {
			if n == "" {
				continue
			}
			if got, want := redis.KeySlot(n), redis.KeySlot(k); got != want {
				t.Errorf("key %q (slot %d): derived %q has slot %d", k, want, n, got)
			}
		}
	}
	if got := redis.CounterKey("order:42"); got != "{order:42}:token" {
		t.Errorf("CounterKey(order:42) = %q", got)
	}
	for _, tc := range []struct{ got, want string }{
		{redis.ChannelName("a:{42}"), "a:{42}:released"},
		{redis.VoidKey("order:42", "o1"), "{order:42}:void:o1"},
		{redis.QueueKey("order:42"), "{order:42}:queue"},
		{redis.QueueKey("{app}:order#1"), "{app}:order#1##queue"},
		{redis.CounterKey("{app}:order#1"), "{app}:order#1##token"},
		{redis.VoidKey("{app}:order#1", "o1"), "{app}:order#1##void:o1"},
		{redis.LegacyKey("{app}:order#1"), "{app}:order#1:token"},
		{redis.LegacyKey("order:42"), ""},
	} {
		if tc.got != tc.want {
			t.Errorf("derived name %q, want %q", tc.got, tc.want)
		}
	}
}

// TestAcquireNames_allocs checks that the names made on every acquisition
// share one allocation, except for keys that need a slot tag.
func TestAcquireNames_allocs(t *testing.T) {
	for _, k := range []string{"lock4j:order#42", "order:{42}:x", "{app}:order#42"} {
		if n := testing.AllocsPerRun(100, func() { redis.AcquireNames(k, "0123456789abcdef0123456789abcdef") }); n != 1 {
			t.Errorf("AcquireNames(%q): %v allocations, want 1", k, n)
		}
	}
}

// TestDerivedNames_clusterKeySlot checks the slot computation against the
// server's own CLUSTER KEYSLOT.
func TestDerivedNames_clusterKeySlot(t *testing.T) {
	c := redisCluster(t)
	client := goredis.NewClient(&goredis.Options{Addr: c.Addrs()[0]})
	defer client.Close()
	for _, k := range slotKeys {
		for _, n := range []string{k, redis.CounterKey(k), redis.ChannelName(k), redis.VoidKey(k, "o1"), redis.LegacyKey(k)} {
			if n == "" {
				continue
			}
			want, err := client.ClusterKeySlot(t.Context(), n).Result()
			if err != nil {
				t.Fatalf("CLUSTER KEYSLOT %q: %v", n, err)
			}
			if got := redis.KeySlot(n); int64(got) != want {
				t.Errorf("KeySlot(%q) = %d, CLUSTER KEYSLOT says %d", n, got, want)
			}
		}
	}
}
