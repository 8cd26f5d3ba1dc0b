package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWithHandWritten(t *testing.T) {
	hand := handMarker + "\n\n## Measured by hand\n\nfigures\n"
	for _, tc := range []struct{ name, old, want string }{
		{"no old file", "", "# generated\n"},
		{"old without a hand-written part", "# old generated\n", "# generated\n"},
		{"old with one", "# old generated\n\n" + hand, "# generated\n\n" + hand},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := withHandWritten("# generated\n", tc.old); got != tc.want {
				t.Errorf("withHandWritten = %q, want %q", got, tc.want)
			}
		})
	}
	path := filepath.Join(t.TempDir(), "bench.md")
	if err := os.WriteFile(path, []byte("# old\n\n"+hand), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeBench(path, "# new\n"); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "# new\n\n"+hand {
		t.Errorf("bench.md = %q", got)
	}
}

// The committed docs/bench.md has its hand-written part where lockbench
// looks for it, once.
func TestBenchMD_handMarker(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "bench.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), handMarker); n != 1 {
		t.Fatalf("docs/bench.md has the hand-written marker %d times, want once", n)
	}
}
