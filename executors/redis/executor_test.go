package redis_test

import (
	"log/slog"
	"strings"
	"testing"

	goredis "github.com/redis/go-redis/v9"

	"github.com/lock4go/lock4go/executors/redis"
)

func TestEvicting(t *testing.T) {
	for policy, want := range map[string]bool{
		"noeviction": false, "allkeys-lru": true, "allkeys-lfu": true, "allkeys-random": true,
		"volatile-lru": true, "volatile-lfu": true, "volatile-random": true, "volatile-ttl": true, "": false,
	} {
		if got := redis.Evicting(policy); got != want {
			t.Errorf("Evicting(%q) = %v, want %v", policy, got, want)
		}
	}
}

// TestNew_evictionWarning checks the start-up check of maxmemory-policy: a
// warning for an evicting policy, silence for noeviction and for a user that
// may not run CONFIG.
func TestNew_evictionWarning(t *testing.T) {
	s := server(t)
	admin := newClient(t, s.Addr())
	const user, pass = "lock4go-noconfig", "secret"
	if err := admin.Do(t.Context(), "ACL", "SETUSER", user, "on", ">"+pass, "~*", "&*", "+@all", "-config").Err(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Do(t.Context(), "ACL", "DELUSER", user) })
	t.Cleanup(func() { admin.ConfigSet(t.Context(), "maxmemory-policy", "noeviction") })

	tests := []struct {
		name, policy string
		noConfig     bool
		warn         bool
	}{
		{"noeviction", "noeviction", false, false},
		{"allkeys-lru", "allkeys-lru", false, true},
		{"volatile-ttl", "volatile-ttl", false, true},
		{"CONFIG refused", "allkeys-lru", true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := admin.ConfigSet(t.Context(), "maxmemory-policy", tc.policy).Err(); err != nil {
				t.Fatal(err)
			}
			var opts []clientOpt
			if tc.noConfig {
				opts = append(opts, func(o *goredis.Options) { o.Username, o.Password = user, pass })
			}
			var logs logBuffer
			e, err := redis.New(newClient(t, s.Addr(), opts...), redis.Options{
				Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
			})
			if err != nil {
				t.Fatal(err)
			}
			if err := e.Close(); err != nil { // waits for the check
				t.Fatal(err)
			}
			out := logs.String()
			if warned := strings.Contains(out, "level=WARN"); warned != tc.warn {
				t.Fatalf("warning logged: %v, want %v; log:\n%s", warned, tc.warn, out)
			}
			if tc.noConfig && !strings.Contains(out, "eviction check skipped") {
				t.Fatalf("no debug message for a refused CONFIG; log:\n%s", out)
			}
		})
	}
}
