package size

import (
	"os/exec"
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
// and holds lockhttp to 1.5x plainhttp. make bench measures the same
// (docs/bench.md, "Binary size"), which the README quotes.
func TestHTTPOnly_size(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two binaries; run without -short")
	}
	s, err := Measure(t.Context(), ".")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("lockhttp %d bytes, plainhttp %d bytes: %.2fx", s.Lock, s.Plain, s.Ratio())
	if s.Ratio() > 1.5 {
		t.Fatalf("lockhttp is %.2fx plainhttp, want at most 1.5x", s.Ratio())
	}
}
