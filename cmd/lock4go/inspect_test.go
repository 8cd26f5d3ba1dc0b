package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lock4go/lock4go"
)

// TestInspect holds a key through a Template and checks what inspect
// prints of it, in text and JSON, and of a key nobody holds.
func TestInspect(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backendCase) {
		key, free := uniqueKey(t), uniqueKey(t)+":free"
		l := hold(t, b, key)

		r := runCLI(t, "", nil, args(b.flags, []string{"inspect", key, free})...)
		wantCode(t, r, exitNotHeld)
		if got, want := row(r.stdout, key), []string{key, "lock", "1", l.Owner(), fmt.Sprint(l.Token())}; !slices.Equal(got[:min(5, len(got))], want) {
			t.Errorf("row of %s = %q, want it to start with %q", key, got, want)
		}
		if got, want := row(r.stdout, free), []string{free, "not", "held"}; !slices.Equal(got, want) {
			t.Errorf("row of %s = %q, want %q", free, got, want)
		}
		if !strings.Contains(r.stdout, "BACKEND WAITERS") || !strings.Contains(r.stdout, "one per process waiting for a lock") {
			t.Errorf("the table does not say what BACKEND WAITERS counts")
		}

		r = runCLI(t, "", nil, args(b.flags, []string{"inspect", "--json", key})...)
		wantCode(t, r, exitOK)
		var got []keyState
		if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || len(got) != 1 {
			t.Fatalf("JSON %q: %v, %d states", r.stdout, err, len(got))
		}
		s := got[0]
		if s.Backend != b.kind || s.Key != key || !s.Held || s.Kind != "lock" || len(s.Holders) != 1 ||
			s.Holders[0].Owner != l.Owner() || s.Holders[0].Token == nil || *s.Holders[0].Token != l.Token() {
			t.Errorf("JSON state %+v, want %s holding %q as %s with token %d", s, b.kind, key, l.Owner(), l.Token())
		}
		if !strings.Contains(r.stdout, fmt.Sprintf(`"token": %d`, l.Token())) {
			t.Errorf("the JSON does not carry the token %d", l.Token())
		}
		checkLease(t, b.kind, s.Holders[0])
		if s.BackendWaiters == nil || *s.BackendWaiters != 0 {
			t.Errorf("backend_waiters %v, want 0", s.BackendWaiters)
		}
	})
}

// row returns the fields of the line of the table out that starts with key.
func row(out, key string) []string {
	for line := range strings.Lines(out) {
		if f := strings.Fields(line); len(f) > 0 && f[0] == key {
			return f
		}
	}
	return nil
}

// checkLease checks the lease left in s: up to holderExpire, or null on
// ZooKeeper, whose lease is the holder's session.
func checkLease(t *testing.T, kind string, s holderState) {
	t.Helper()
	if kind == "zookeeper" {
		if s.TTLms != nil {
			t.Errorf("ttl_ms %d on ZooKeeper, want null", *s.TTLms)
		}
		return
	}
	if s.TTLms == nil || *s.TTLms <= 0 || *s.TTLms > holderExpire.Milliseconds() {
		t.Errorf("ttl_ms %v, want in (0, %d]", s.TTLms, holderExpire.Milliseconds())
	}
}

// TestInspect_waiters: a process waiting for the key shows as a waiter.
func TestInspect_waiters(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backendCase) {
		key := uniqueKey(t)
		hold(t, b, key)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		waiter := newTemplate(t, b.executor(t))
		done := make(chan error, 1)
		go func() {
			l, err := waiter.Lock(ctx, key, lock4go.WithAcquireTimeout(time.Minute))
			if err == nil {
				_ = l.Release(context.WithoutCancel(ctx))
			}
			done <- err
		}()
		deadline := time.Now().Add(20 * time.Second)
		for {
			r := runCLI(t, "", nil, args(b.flags, []string{"inspect", "--json", key})...)
			var got []keyState
			_ = json.Unmarshal([]byte(r.stdout), &got)
			if len(got) == 1 && got[0].BackendWaiters != nil && *got[0].BackendWaiters == 1 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("no waiter shown 20s after a second Template began to wait: %s", r.stdout)
			}
		}
		cancel()
		if err := <-done; err == nil {
			t.Fatal("the waiter acquired a key that was held all along")
		}
	})
}

// TestInspect_severalBackends prints one section per backend.
func TestInspect_severalBackends(t *testing.T) {
	var flags []string
	var cases []backendCase
	forEachBackend(t, func(t *testing.T, b backendCase) {
		flags = append(flags, b.flags...)
		cases = append(cases, b)
	})
	if len(cases) != 3 {
		t.Skip("needs all three backends")
	}
	key := uniqueKey(t)
	l := hold(t, cases[1], key) // etcd
	r := runCLI(t, "", nil, append(flags, "inspect", key)...)
	wantCode(t, r, exitNotHeld)
	sections := strings.Split(r.stdout, "\n\n")
	if len(sections) != 3 {
		t.Fatalf("%d sections, want 3", len(sections))
	}
	for i, b := range cases {
		if !strings.HasPrefix(sections[i], b.kind+" ") {
			t.Errorf("section %d starts %q, want %s", i, sections[i], b.kind)
		}
		held := strings.Contains(sections[i], l.Owner())
		if held != (b.kind == "etcd") {
			t.Errorf("section %s shows the holder: %v", b.kind, held)
		}
	}
}
