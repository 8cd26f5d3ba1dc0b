package doccheck

import (
	"bytes"
	"context"
	"go/format"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lock4go/lock4go/internal/testserver"
)

// maxQuickStart is the most lines the README's first program may take: a
// client, an executor, a Template, a lock, its release and Do, each error
// checked (three lines each).
const maxQuickStart = 36

// TestREADME_firstProgram copies the README's first Go block, a complete
// program, into a new module outside this repository (a go.mod that
// requires lock4go, replaced by this checkout; modules from the cache or
// the proxy) and runs it unchanged against a redis-server whose address it
// reads from REDIS_ADDR.
func TestREADME_firstProgram(t *testing.T) {
	root := repoRoot(t)
	src, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := goBlocks("README.md", src)
	if len(blocks) == 0 || !isProgram(blocks[0].code) {
		t.Fatal("the README's first Go block is not a complete program (package main)")
	}
	prog := blocks[0]
	if n := strings.Count(prog.code, "\n"); n > maxQuickStart {
		t.Errorf("the README's first program (README.md:%d) has %d lines, want at most %d", prog.line, n, maxQuickStart)
	}
	if formatted, err := format.Source([]byte(prog.code)); err != nil || string(formatted) != prog.code {
		t.Errorf("the README's first program (README.md:%d) is not gofmt-formatted (%v)", prog.line, err)
	}
	for _, want := range []string{"goredis.NewClient", "redis.New(", "lock4go.New(", ".Lock(", ".Token()", ".Release(", ".Do("} {
		if !strings.Contains(prog.code, want) {
			t.Errorf("the README's first program does not show %s", want)
		}
	}
	srv, err := testserver.StartRedis()
	testserver.Check(t, err)
	t.Cleanup(func() { _ = srv.Stop() })

	dir := t.TempDir()
	gomod := "module example.com/quickstart\n\ngo 1.26\n\nrequire github.com/lock4go/lock4go v0.0.0\n\nreplace github.com/lock4go/lock4go => " + root + "\n"
	sum, err := os.ReadFile(filepath.Join(root, "go.sum")) // lock4go's requirements' sums: no checksum database needed
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{"go.mod": gomod, "go.sum": string(sum), "main.go": prog.code} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "run", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "REDIS_ADDR="+srv.Addr())
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("go run of the README's first program (README.md:%d): %v\n%s", prog.line, err, out.String())
	}
	t.Logf("output:\n%s", out.String())
	if n := strings.Count(prog.code, "err != nil"); n < 5 {
		t.Errorf("the README's first program checks %d errors, want every one: redis.New, lock4go.New, Lock, Release and Do", n)
	}
	for _, want := range []string{"holding order:42 with fencing token", "released, then held again by Do"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the program's output lacks %q", want)
		}
	}
}
