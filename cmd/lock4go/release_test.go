package main

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/lock4go/lock4go"
)

// TestRelease_force breaks a lock held through a Template: the tool logs
// the broken owner, the key can be taken again, and the holder finds out
// as its backend allows (Redis: at its next renewal; ZooKeeper: at once;
// etcd: only when it releases).
func TestRelease_force(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backendCase) {
		key := uniqueKey(t)
		l := hold(t, b, key)
		r := runCLI(t, "", nil, args([]string{"release", "--force", "--yes"}, b.flags, []string{key})...)
		wantCode(t, r, exitOK)
		if !strings.Contains(r.stdout, "broke "+key) {
			t.Errorf("stdout lacks %q", "broke "+key)
		}
		if !strings.Contains(r.stderr, "lock broken by hand") || !strings.Contains(r.stderr, "owner="+l.Owner()) {
			t.Errorf("stderr does not log the broken owner %s", l.Owner())
		}
		other := newTemplate(t, b.executor(t))
		next, err := other.Lock(t.Context(), key, lock4go.WithAcquireTimeout(10*time.Second))
		if err != nil {
			t.Fatalf("Lock after the break = %v", err)
		}
		defer next.Release(context.WithoutCancel(t.Context()))
		if b.kind == "etcd" {
			if err := l.Release(t.Context()); !errors.Is(err, lock4go.ErrLockNotHeld) {
				t.Fatalf("broken holder's Release = %v, want ErrLockNotHeld", err)
			}
			return
		}
		select {
		case <-l.Done():
			if !errors.Is(l.Err(), lock4go.ErrLockLost) {
				t.Fatalf("broken holder's Err() = %v, want ErrLockLost", l.Err())
			}
		case <-time.After(2 * holderExpire):
			t.Fatalf("the broken holder's Done did not close within %v", 2*holderExpire)
		}
	})
}

// TestRelease_refused: without confirmation nothing is broken.
func TestRelease_refused(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backendCase) {
		key := uniqueKey(t)
		l := hold(t, b, key)
		for _, stdin := range []string{"n\n", "", "maybe\n"} {
			r := runCLI(t, stdin, nil, args([]string{"release", "--force", key}, b.flags)...)
			wantCode(t, r, exitRefused)
			if !strings.Contains(r.stderr, l.Owner()) || !strings.Contains(r.stderr, "[y/N]") {
				t.Errorf("stderr does not show the holder %s and the question", l.Owner())
			}
			if strings.Contains(r.stdout, "broke") {
				t.Errorf("stdout says something was broken: %s", r.stdout)
			}
		}
		r := runCLI(t, "", nil, args([]string{"inspect"}, b.flags, []string{key})...)
		wantCode(t, r, exitOK)
		select {
		case <-l.Done():
			t.Fatalf("the holder lost its lock: %v", l.Err())
		default:
		}
	})
}

// TestRelease_holderChanged: when the holder shown releases and another
// takes the key while the tool waits for confirmation, the new holder is
// not broken.
func TestRelease_holderChanged(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backendCase) {
		key := uniqueKey(t)
		old := hold(t, b, key)
		cmd := exec.CommandContext(t.Context(), binary, args([]string{"release", "--force", key}, b.flags)...)
		cmd.Env = cleanEnv()
		stdin, _ := cmd.StdinPipe()
		stderr, _ := cmd.StderrPipe()
		var stdout strings.Builder
		cmd.Stdout = &stdout
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		awaitText(t, stderr, "[y/N]")
		if err := old.Release(t.Context()); err != nil {
			t.Fatal(err)
		}
		cur := hold(t, b, key)
		_, _ = io.WriteString(stdin, "y\n")
		rest, _ := io.ReadAll(stderr)
		var ee *exec.ExitError
		if err := cmd.Wait(); !errors.As(err, &ee) || ee.ExitCode() != exitNotHeld {
			t.Fatalf("exit %v, want code %d; stderr: %s", err, exitNotHeld, rest)
		}
		if !strings.Contains(string(rest), "nothing was broken") {
			t.Errorf("stderr %q does not say nothing was broken", rest)
		}
		r := runCLI(t, "", nil, args([]string{"inspect", "--json"}, b.flags, []string{key})...)
		wantCode(t, r, exitOK)
		if !strings.Contains(r.stdout, cur.Owner()) {
			t.Fatalf("the new holder %s is gone: %s", cur.Owner(), r.stdout)
		}
	})
}

// awaitText reads r until it has seen text.
func awaitText(t *testing.T, r io.Reader, text string) {
	t.Helper()
	found := make(chan bool, 1)
	go func() {
		br := bufio.NewReader(r)
		var seen strings.Builder
		for {
			b, err := br.ReadByte()
			if err != nil {
				found <- false
				return
			}
			seen.WriteByte(b)
			if strings.HasSuffix(seen.String(), text) {
				found <- true
				return
			}
		}
	}()
	select {
	case ok := <-found:
		if !ok {
			t.Fatalf("output ended before %q", text)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("no %q within 30s", text)
	}
}

// TestRelease_usage covers release's own refusals.
func TestRelease_usage(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backendCase) {
		key := uniqueKey(t)
		tests := []struct {
			name string
			args []string
			code int
		}{
			{"without --force", []string{"release", "--yes", key}, exitUsage},
			{"two keys", []string{"release", "--force", "--yes", key, key + "2"}, exitUsage},
			{"not held", []string{"release", "--force", "--yes", key}, exitNotHeld},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				r := runCLI(t, "y\n", nil, append(tc.args, b.flags...)...)
				wantCode(t, r, tc.code)
				if strings.Contains(r.stdout, "broke") {
					t.Errorf("stdout says something was broken: %s", r.stdout)
				}
			})
		}
	})
}
