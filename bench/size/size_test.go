package size

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestHTTPOnly_linksNoGRPC lists the packages an HTTP-only service links
// (lock4go, executors/redis, middleware): none may be gRPC's or
// protobuf's. A package that imports them for everyone would make every
// net/http user pay for gRPC (the binary was 2.5x its go-redis+net/http
// twin before grpclock moved out of middleware).
func TestHTTPOnly_linksNoGRPC(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "./lockhttp").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps ./lockhttp: %v\n%s", err, out)
	}
	var bad []string
	for _, pkg := range strings.Fields(string(out)) {
		for _, heavy := range []string{"google.golang.org/grpc", "google.golang.org/protobuf", "google.golang.org/genproto", "go.opentelemetry.io/"} {
			if strings.HasPrefix(pkg, heavy) {
				bad = append(bad, pkg)
			}
		}
	}
	if len(bad) > 0 {
		t.Fatalf("an HTTP-only service links %d packages it does not use, e.g. %s", len(bad), bad[0])
	}
	if !strings.Contains(string(out), "github.com/lock4go/lock4go/middleware") {
		t.Fatalf("go list did not list the middleware: %s", out)
	}
}

// TestHTTPOnly_size builds both services with -trimpath and default flags
// and holds lockhttp to 1.5x plainhttp.
func TestHTTPOnly_size(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two binaries; run without -short")
	}
	dir := t.TempDir()
	size := func(name string) int64 {
		bin := filepath.Join(dir, name)
		if out, err := exec.Command("go", "build", "-trimpath", "-o", bin, "./"+name).CombinedOutput(); err != nil {
			t.Fatalf("go build ./%s: %v\n%s", name, err, out)
		}
		fi, err := os.Stat(bin)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	lock, plain := size("lockhttp"), size("plainhttp")
	ratio := float64(lock) / float64(plain)
	t.Logf("lockhttp %d bytes, plainhttp %d bytes: %.2fx", lock, plain, ratio)
	if ratio > 1.5 {
		t.Fatalf("lockhttp is %.2fx plainhttp, want at most 1.5x", ratio)
	}
}
