package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestWatch starts watch on a free key, takes the key, waits for the line
// that shows the new holder, then interrupts the tool, which exits 0.
func TestWatch(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backendCase) {
		for _, asJSON := range []bool{false, true} {
			name := "text"
			if asJSON {
				name = "json"
			}
			t.Run(name, func(t *testing.T) { testWatch(t, b, asJSON) })
		}
	})
}

func testWatch(t *testing.T, b backendCase, asJSON bool) {
	key := uniqueKey(t)
	a := args([]string{"watch", "--interval", "50ms", key}, b.flags)
	if asJSON {
		a = append(a, "--json")
	}
	cmd := exec.CommandContext(t.Context(), binary, a...)
	cmd.Env = cleanEnv()
	out, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := readLines(out)
	first := nextLine(t, lines)
	if !strings.Contains(first, "not held") && !strings.Contains(first, `"held":false`) {
		t.Fatalf("first line %q, want the key not held", first)
	}
	l := hold(t, b, key)
	changed := nextLine(t, lines)
	if asJSON {
		var s keyState
		if err := json.Unmarshal([]byte(changed), &s); err != nil || !s.Held || len(s.Holders) != 1 || s.Holders[0].Owner != l.Owner() || s.Holders[0].Token == nil || *s.Holders[0].Token != l.Token() || s.Time == nil {
			t.Fatalf("line %q (%v), want the holder %s with token %d and a time", changed, err, l.Owner(), l.Token())
		}
	} else if !strings.Contains(changed, "held by owner "+l.Owner()) {
		t.Fatalf("line %q, want the holder %s", changed, l.Owner())
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	waitExit(t, cmd, 10*time.Second)
	if !strings.Contains(stderr.String(), "watching "+key) {
		t.Errorf("stderr %q does not say what it watches", stderr.String())
	}
}

// readLines sends each line of r on the returned channel, closed at the
// end of r.
func readLines(r io.Reader) <-chan string {
	ch := make(chan string, 16)
	go func() {
		defer close(ch)
		s := bufio.NewScanner(r)
		for s.Scan() {
			ch <- s.Text()
		}
	}()
	return ch
}

// nextLine returns the next line of watch's output.
func nextLine(t *testing.T, lines <-chan string) string {
	t.Helper()
	select {
	case l, ok := <-lines:
		if !ok {
			t.Fatal("output ended")
		}
		t.Logf("watch: %s", l)
		return l
	case <-time.After(30 * time.Second):
		t.Fatal("no line within 30s")
	}
	return ""
}

// waitExit waits for cmd to exit with code 0 within d.
func waitExit(t *testing.T, cmd *exec.Cmd, d time.Duration) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit after SIGINT: %v, want code 0", err)
		}
	case <-time.After(d):
		t.Fatalf("still running %v after SIGINT", d)
	}
}
