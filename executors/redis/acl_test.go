package redis_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executor/executortest"
	"github.com/lock4go/lock4go/executors/redis"
)

// docs/redis.md gives the exact ACL SETUSER line for the default KeyPrefix.
func TestACLRules_docs(t *testing.T) {
	b, err := os.ReadFile("../../docs/redis.md")
	if err != nil {
		t.Fatal(err)
	}
	want := "ACL SETUSER lock4go reset on >PASSWORD " + redis.ACLRules("lock4go")
	if !strings.Contains(string(b), want) {
		t.Fatalf("docs/redis.md lacks the line\n%s", want)
	}
}

func TestACLRules_escapesGlobs(t *testing.T) {
	got := redis.ACLRules(`a*b?[c]\`)
	if want := `~a\*b\?\[c\]\\:*`; !strings.Contains(got, " "+want+" ") {
		t.Fatalf("ACLRules = %q, want it to contain %q", got, want)
	}
}

// The conformance suite passes as a user with ACLRules("lock4go") only, on a
// server started with that user, and the server denied that user nothing
// but CONFIG GET (the executor's eviction check, which it skips).
func TestConformance_aclUser(t *testing.T) {
	s := aclServer(t)
	admin := newClient(t, s.Addr())
	resetACLLog(t, admin)
	executortest.Run(t, func(t *testing.T) executor.Executor {
		return newExecutor(t, newClient(t, s.Addr(), ctxTimeouts, asUser(aclUser, aclPass)), redis.Options{})
	}, executortest.Options{ShortTTL: 300 * time.Millisecond, SharedTokensUnkept: true, KeyPrefix: "lock4go:conformance"})
	checkACLLog(t, admin, aclUser)
}

// Every shape of key and prefix works as a user with ACLRules(prefix):
// acquire, wake-up of a waiter, renew, inspect and release, touching the
// key's queue, shares and void marker under their three naming forms.
func TestACLRules_derivedNames(t *testing.T) {
	s := server(t)
	admin := newClient(t, s.Addr())
	for _, tc := range []struct {
		name, prefix, key string
	}{
		{"plain key", "lock4go", "lock4go:pay#42"},
		{"hash tag in the key", "lock4go", "lock4go:POST /orders/{id}/pay#42"},
		{"hash tag", "lock4go", "lock4go:{tag}#7"},
		{"brace without a tag", "lock4go", "lock4go:a}b#1"},
		{"empty tag", "lock4go", "lock4go:{}x#1"},
		{"hash tag in the prefix", "{app}", "{app}:order#1"},
		{"glob characters in the prefix", "a*b?[c]", "a*b?[c]:order#1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			user := newACLUser(t, admin, redis.ACLRules(tc.prefix))
			e := newExecutor(t, newClient(t, s.Addr(), ctxTimeouts, asUser(user, aclPass)), redis.Options{})
			waiter := newExecutor(t, newClient(t, s.Addr(), ctxTimeouts, asUser(user, aclPass)), redis.Options{})
			key := tc.key + ":" + owner()[:8]
			r := req(key, time.Minute)
			l, err := e.Acquire(t.Context(), r)
			if err != nil {
				t.Fatalf("Acquire = %v", err)
			}
			released, stop := waiter.WatchRelease(t.Context(), key)
			defer stop()
			if err := l.Renew(t.Context(), time.Minute); err != nil {
				t.Fatalf("Renew = %v", err)
			}
			if h, err := e.Inspect(t.Context(), key); err != nil || h.Owner != r.Owner || h.Token != l.Token() {
				t.Fatalf("Inspect = %+v, %v; want owner %s token %d", h, err, r.Owner, l.Token())
			}
			if err := l.Release(t.Context()); err != nil {
				t.Fatalf("Release = %v", err)
			}
			select {
			case <-released:
			case <-time.After(5 * time.Second):
				t.Fatal("the waiter was not woken by the release")
			}
			if !redis.Void(e, key, owner(), time.Second) {
				t.Fatal("the void (its marker) was refused")
			}
			checkACLLog(t, admin, user)
		})
	}
}

// Keys outside a user's prefix are refused with NOPERM, wrapped in
// ErrBackend.
func TestACLRules_refusesOtherKeys(t *testing.T) {
	s := server(t)
	admin := newClient(t, s.Addr())
	for _, tc := range []struct {
		name, prefix, key string
	}{
		{"another prefix", "lock4go", "other:1"},
		{"the prefix without its colon", "lock4go", "lock4go"},
		{"a longer prefix", "lock4go", "lock4gox:1"},
		{"what the unescaped glob would match", "a*b?[c]", "aZZbQc:1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			user := newACLUser(t, admin, redis.ACLRules(tc.prefix))
			e := newExecutor(t, newClient(t, s.Addr(), ctxTimeouts, asUser(user, aclPass)), redis.Options{})
			l, err := e.Acquire(t.Context(), req(tc.key, time.Minute))
			if err == nil {
				_ = l.Release(context.WithoutCancel(t.Context()))
				t.Fatalf("Acquire(%q) as a user of prefix %q succeeded", tc.key, tc.prefix)
			}
			if !errors.Is(err, executor.ErrBackend) || !strings.Contains(err.Error(), "NOPERM") {
				t.Fatalf("Acquire = %v, want ErrBackend naming NOPERM", err)
			}
		})
	}
}

// newACLUser creates a user with rules and password aclPass, deleted at the
// end of the test, and returns its name.
func newACLUser(t *testing.T, admin *goredis.Client, rules string) string {
	t.Helper()
	name := "u-" + owner()[:12]
	args := []any{"ACL", "SETUSER", name, "reset", "on", ">" + aclPass}
	for _, r := range strings.Fields(rules) {
		args = append(args, r)
	}
	if err := admin.Do(t.Context(), args...).Err(); err != nil {
		t.Fatalf("ACL SETUSER: %v", err)
	}
	t.Cleanup(func() { _ = admin.Do(context.WithoutCancel(t.Context()), "ACL", "DELUSER", name).Err() })
	return name
}

// resetACLLog empties the server's ACL LOG.
func resetACLLog(t *testing.T, admin *goredis.Client) {
	t.Helper()
	if err := admin.ACLLogReset(t.Context()).Err(); err != nil {
		t.Fatal(err)
	}
}

// checkACLLog fails the test when the server's ACL LOG holds a denial for
// user other than CONFIG GET, which the executor's eviction check sends and
// skips when refused.
func checkACLLog(t *testing.T, admin *goredis.Client, user string) {
	t.Helper()
	entries, err := admin.ACLLog(t.Context(), 1000).Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, en := range entries {
		if en.Username != user || en.Reason == "command" && en.Object == "config|get" {
			continue
		}
		t.Errorf("ACL LOG: user %s denied %s %q (context %s, %d times)", en.Username, en.Reason, en.Object, en.Context, en.Count)
	}
}

// On a Redis Cluster the user needs CLUSTER SLOTS besides ACLRules, for
// go-redis to learn the slot map, and COMMAND, which go-redis's cluster
// client reads to route commands (refused, it asks again before every
// command: thousands of refusals in one run of the suite).
func TestConformance_clusterACLUser(t *testing.T) {
	c := redisCluster(t)
	rules := redis.ACLRules("lock4go") + " +cluster|slots +command"
	var user string
	for i, addr := range c.Addrs() {
		admin := newClient(t, addr)
		if i == 0 {
			user = newACLUser(t, admin, rules)
			continue
		}
		args := []any{"ACL", "SETUSER", user, "reset", "on", ">" + aclPass}
		for _, r := range strings.Fields(rules) {
			args = append(args, r)
		}
		if err := admin.Do(t.Context(), args...).Err(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = admin.Do(context.WithoutCancel(t.Context()), "ACL", "DELUSER", user).Err() })
	}
	executortest.Run(t, func(t *testing.T) executor.Executor {
		client := goredis.NewClusterClient(&goredis.ClusterOptions{Addrs: c.Addrs(), Username: user, Password: aclPass, ContextTimeoutEnabled: true})
		t.Cleanup(func() { _ = client.Close() })
		return newExecutor(t, client, redis.Options{})
	}, executortest.Options{ShortTTL: 300 * time.Millisecond, SharedTokensUnkept: true, KeyPrefix: "lock4go:conformance"})
	for _, addr := range c.Addrs() {
		checkACLLog(t, newClient(t, addr), user)
	}
}
