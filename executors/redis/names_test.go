package redis_test

import (
	"slices"
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
		v, q, sh := redis.VoidKey(k, o), redis.QueueKey(k), redis.SharesKey(k)
		if v == k || q == k || sh == k || q == v || sh == q || sh == v {
			t.Errorf("key %q: void marker %q, queue %q, shares %q are not distinct", k, v, q, sh)
		}
		if v2 := redis.VoidKey(k, o+"x"); v2 == v {
			t.Errorf("key %q: two owners share the void marker %q", k, v)
		}
		if n := redis.LockNames(k); len(n) != 4 || n[0] != k || n[1] != sh || n[2] != q || n[3]+o != v {
			t.Errorf("LockNames(%q) = %q; want %q, %q, %q and the prefix of %q", k, n, k, sh, q, v)
		}
		args, _ := redis.ReleaseArgs(k, o, 42)
		if want := append(redis.LockNames(k), o, o+"\x0042"); !slices.Equal(args, want) {
			t.Errorf("release call of %q: keys and arguments %q, want %q", k, args, want)
		}
		_, tagged := hashTagOf(k)
		if redis.ReservedKey(k) || redis.ReservedKey(v) != tagged || redis.ReservedKey(q) != tagged || redis.ReservedKey(sh) != tagged {
			t.Errorf("key %q: ReservedKey of the key, its void marker %q, its queue %q, its shares %q = %v, %v, %v, %v",
				k, v, q, sh, redis.ReservedKey(k), redis.ReservedKey(v), redis.ReservedKey(q), redis.ReservedKey(sh))
		}
		for _, n := range []string{v, q, sh} {
			if got, want := redis.KeySlot(n), redis.KeySlot(k); got != want {
				t.Errorf("key %q (slot %d): derived %q has slot %d", k, want, n, got)
			}
		}
	}
	for _, tc := range []struct{ got, want string }{
		{redis.VoidKey("order:42", "o1"), "{order:42}:void:o1"},
		{redis.QueueKey("order:42"), "{order:42}:queue"},
		{redis.SharesKey("order:42"), "{order:42}:shares"},
		{redis.QueueKey("{app}:order#1"), "{app}:order#1##queue"},
		{redis.VoidKey("{app}:order#1", "o1"), "{app}:order#1##void:o1"},
	} {
		if tc.got != tc.want {
			t.Errorf("derived name %q, want %q", tc.got, tc.want)
		}
	}
}

// hashTagOf reports whether key has a hash tag: a non-empty "{...}".
func hashTagOf(key string) (string, bool) {
	_, rest, ok := strings.Cut(key, "{")
	if !ok {
		return "", false
	}
	tag, _, ok := strings.Cut(rest, "}")
	return tag, ok && tag != ""
}

// TestDerivedNames_clusterKeySlot checks the slot computation against the
// server's own CLUSTER KEYSLOT.
func TestDerivedNames_clusterKeySlot(t *testing.T) {
	c := redisCluster(t)
	client := goredis.NewClient(&goredis.Options{Addr: c.Addrs()[0]})
	defer client.Close()
	for _, k := range slotKeys {
		for _, n := range []string{k, redis.QueueKey(k), redis.SharesKey(k), redis.VoidKey(k, "o1")} {
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
