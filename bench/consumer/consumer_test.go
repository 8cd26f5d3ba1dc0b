package consumer

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// A consumer is a module that imports the root package and one executor:
// what it may find in its go.sum beside the root module's own
// dependencies is its backend's client (own) and what the root package
// and its tests link (github.com/google/wire, go.uber.org/goleak).
var consumers = []struct {
	executor string
	own      []string // modules of the executor's backend, among the root's direct requirements
}{
	{"executors/redis", []string{"github.com/redis/go-redis/v9"}},
	{"executors/postgres", []string{"github.com/jackc/pgx/v5"}},
}

// linked are the root module's direct requirements that every consumer may
// list: the root package's wire provider set, and its tests' leak check.
var linked = []string{"github.com/google/wire", "go.uber.org/goleak"}

// TestConsumer_oneBackend tidies, for each consumer, a new module outside
// the repository (lock4go replaced by this checkout, modules from the
// cache or the proxy) and fails when its go.sum lists a module that the
// root module requires directly for another backend or feature (pgx, etcd,
// ZooKeeper, gRPC, zap, gocron...): go mod tidy keeps the modules of the
// imported packages and of their tests, so a test helper that links every
// backend puts them all there.
func TestConsumer_oneBackend(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	root := repoRoot(t)
	direct := directRequirements(t, filepath.Join(root, "go.mod"))
	for _, c := range consumers {
		t.Run(filepath.Base(c.executor), func(t *testing.T) {
			sum := tidy(t, root, c.executor)
			for _, m := range direct {
				if slices.Contains(c.own, m) || slices.Contains(linked, m) {
					continue
				}
				if strings.Contains(sum, m+" ") {
					t.Errorf("a module that imports only lock4go and %s lists %s in its go.sum (see go mod why -m %s in such a module)", c.executor, m, m)
				}
			}
		})
	}
}

// tidy writes a module that imports the root package and executor, runs
// go mod tidy in it and returns its go.sum.
func tidy(t *testing.T, root, executor string) string {
	dir := t.TempDir()
	gomod := "module example.com/consumer\n\ngo 1.26\n\nrequire github.com/lock4go/lock4go v0.0.0\n\nreplace github.com/lock4go/lock4go => " + root + "\n"
	main := "package main\n\nimport (\n\t\"fmt\"\n\n\t\"github.com/lock4go/lock4go\"\n\tbackend \"github.com/lock4go/lock4go/" + executor + "\"\n)\n\nfunc main() { fmt.Println(lock4go.New, backend.New) }\n"
	sum, err := os.ReadFile(filepath.Join(root, "go.sum")) // lock4go's requirements' sums: no checksum database needed for them
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{"go.mod": gomod, "go.sum": string(sum), "main.go": main} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "mod", "tidy")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go mod tidy in a module importing %s: %v\n%s", executor, err, out)
	}
	got, err := os.ReadFile(filepath.Join(dir, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	return string(got)
}

// directRequirements returns the modules the go.mod at path requires
// directly (those not marked indirect).
func directRequirements(t *testing.T, path string) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var mods []string
	in := false
	for s := bufio.NewScanner(bytes.NewReader(b)); s.Scan(); {
		line := strings.TrimSpace(s.Text())
		switch {
		case line == "require (":
			in = true
		case line == ")":
			in = false
		case in && line != "" && !strings.Contains(line, "// indirect"):
			mods = append(mods, strings.Fields(line)[0])
		}
	}
	if len(mods) == 0 {
		t.Fatalf("no direct requirements found in %s", path)
	}
	return mods
}

// repoRoot returns the root of the repository: the parent of the bench
// module.
func repoRoot(t *testing.T) string {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(filepath.Dir(wd))
}
