package lockdebug_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image/png"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/lock4go/lock4go"
	etcdexec "github.com/lock4go/lock4go/executors/etcd"
	redisexec "github.com/lock4go/lock4go/executors/redis"
	"github.com/lock4go/lock4go/internal/testserver"
	"github.com/lock4go/lock4go/lockdebug"
)

// chromium returns the path of the Chromium binary. A missing browser
// skips the test, or fails it when LOCK4GO_REQUIRE_BACKENDS=1.
func chromium(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		testserver.Check(t, fmt.Errorf("chromium not found (Debian package chromium): run `make setup` (or scripts/setup.sh): %w", testserver.ErrNotInstalled))
	}
	return path
}

// runChromium runs headless Chromium with args and returns its stdout. The
// flags keep it off the network (this machine has none) and out of the
// user's profile.
func runChromium(ctx context.Context, t *testing.T, bin string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	base := []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--hide-scrollbars", "--user-data-dir=" + t.TempDir(),
	}
	cmd := exec.CommandContext(ctx, bin, append(base, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, tail(stderr.String(), 2000))
	}
	return stdout.Bytes()
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// browserScene is a Template over real Redis and etcd servers doing what a
// busy service does: locks held on both (one renewed by the watchdog, one
// kept alive by etcd, one fixed), goroutines queued behind a held key and
// one waiting for another process's lock, a busy key and a lost lock.
type browserScene struct {
	tpl                *lock4go.Template
	renewed, kept, fix *lock4go.Lock
	queuedKey, remote  string
}

func newBrowserScene(t *testing.T) *browserScene {
	t.Helper()
	ctx := t.Context()
	rsrv, err := testserver.StartRedis()
	testserver.Check(t, err)
	t.Cleanup(func() { _ = rsrv.Stop() })
	esrv, err := testserver.StartEtcd()
	testserver.Check(t, err)
	t.Cleanup(func() { _ = esrv.Stop() })

	quiet := slog.New(slog.DiscardHandler)
	rcli := goredis.NewClient(&goredis.Options{Addr: rsrv.Addr()})
	t.Cleanup(func() { _ = rcli.Close() })
	ecli, err := clientv3.New(clientv3.Config{Endpoints: []string{esrv.Addr()}, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ecli.Close() })
	newTpl := func() *lock4go.Template {
		r, err := redisexec.New(rcli, redisexec.Options{Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = r.Close() })
		e, err := etcdexec.New(ecli, etcdexec.Options{Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = e.Close() })
		tpl, err := lock4go.New(lock4go.Config{Expire: 6 * time.Second, Logger: quiet}, r, e)
		if err != nil {
			t.Fatal(err)
		}
		return tpl
	}
	s := &browserScene{tpl: newTpl(), queuedKey: "lock4go:pay#1001", remote: "lock4go:pay#1003"}
	other := newTpl() // another process, as far as the backends can tell
	lock := func(tpl *lock4go.Template, key string, opts ...lock4go.LockOption) *lock4go.Lock {
		l, err := tpl.Lock(ctx, key, opts...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = l.Release(context.Background()) })
		return l
	}
	// A lock taken and released on etcd: its release is a round trip (a
	// Lock on a queue-based executor may wait in its queue, so it is not).
	done, err := s.tpl.Lock(ctx, "lock4go:pay#1000", lock4go.WithExecutor("etcd"))
	if err != nil {
		t.Fatal(err)
	}
	if err := done.Release(ctx); err != nil {
		t.Fatal(err)
	}
	s.renewed = lock(s.tpl, s.queuedKey)
	s.kept = lock(s.tpl, "lock4go:pay#1002", lock4go.WithExecutor("etcd"))
	s.fix = lock(s.tpl, "lock4go:refund#77", lock4go.WithExpire(time.Minute))
	lock(other, s.remote)

	// Lose a lock: delete its key behind the holder; the next renewal finds out.
	gone := lock(s.tpl, "lock4go:ship#9")
	if err := rcli.Del(ctx, gone.Key()).Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.tpl.TryLock(ctx, s.queuedKey); !errors.Is(err, lock4go.ErrNotAcquired) {
		t.Fatalf("TryLock on a held key = %v", err)
	}
	wctx, cancel := context.WithCancel(ctx)
	waiters := make(chan struct{}, 5)
	for _, key := range []string{s.queuedKey, s.queuedKey, s.queuedKey, s.remote, s.remote} {
		go func() {
			defer func() { waiters <- struct{}{} }()
			if l, err := s.tpl.Lock(wctx, key, lock4go.WithAcquireTimeout(time.Hour)); err == nil {
				_ = l.Release(context.Background())
			}
		}()
	}
	t.Cleanup(func() {
		cancel()
		for range 5 {
			<-waiters
		}
	})
	select {
	case <-gone.Done():
	case <-time.After(time.Minute):
		t.Fatal("the lock deleted behind its holder was not lost within a minute")
	}
	awaitSnapshot(t, s.tpl, func(snap lock4go.Snapshot) bool {
		return fmt.Sprint(snap.Queues) == fmt.Sprintf("[{redis %s 3 false} {redis %s 1 true}]", s.queuedKey, s.remote) &&
			len(snap.Held) == 3 && snap.Held[1].Renewals > 0
	})
	return s
}

// awaitSnapshot waits until ok accepts the Template's snapshot, polling,
// since goroutines joining a queue raise no event.
func awaitSnapshot(t *testing.T, tpl *lock4go.Template, ok func(lock4go.Snapshot) bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		s := tpl.Snapshot()
		if ok(s) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("snapshot never reached the scene: held %+v, queues %+v", s.Held, s.Queues)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Headless Chromium renders /debug/locks from a running server with locks
// held and goroutines queued; the test checks what the browser's DOM shows
// and saves screenshots (desktop and phone widths) to the test's artifact
// directory: `go test -run Browser -artifacts -outputdir DIR ./lockdebug/`
// keeps them (docs/debug-locks.png is the desktop one).
func TestHandler_browser(t *testing.T) {
	bin := chromium(t)
	s := newBrowserScene(t)
	mux := http.NewServeMux()
	mux.Handle("GET /debug/locks", lockdebug.Handler(s.tpl))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	url := srv.URL + "/debug/locks"

	dom := string(runChromium(t.Context(), t, bin, "--dump-dom", url))
	for _, want := range []string{
		"<title>/debug/locks · lock4go</title>",
		"3 held · 4 waiting · 2 recent failures",
		// held locks: redis renewed by the watchdog, etcd kept alive by its
		// lease's keep-alive, a fixed lease
		row(s.renewed.Key(), "redis", s.renewed.Token(), s.renewed.Owner()),
		row(s.kept.Key(), "etcd", s.kept.Token(), s.kept.Owner()),
		row(s.fix.Key(), "redis", s.fix.Token(), s.fix.Owner()),
		`data-label="lease left">kept by backend<`,
		`data-label="renewal">fixed<`,
		// the local queue
		`data-label="key">` + s.queuedKey + `</td><td data-label="executor">redis</td><td class="num" data-label="goroutines waiting">3</td><td data-label="turn">held in this process</td>`,
		`data-label="key">` + s.remote + `</td><td data-label="executor">redis</td><td class="num" data-label="goroutines waiting">1</td><td data-label="turn">acquiring from the backend</td>`,
		// failures
		`class="kind-lost" data-label="kind">lost</td><td class="key" data-label="key">lock4go:ship#9<`,
		`class="kind-not_acquired" data-label="kind">not_acquired</td><td class="key" data-label="key">` + s.queuedKey + `<`,
		// executors
		`<td data-label="executor"><span>redis <span class="tag">primary</span></span></td><td data-label="health"><span class="health ok">ok</span>`,
		`<td data-label="executor"><span>etcd</span></td><td data-label="health"><span class="health ok">ok</span>`,
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("the rendered page lacks\n%s", want)
		}
	}
	if t.Failed() {
		t.Logf("DOM:\n%s", dom)
	}

	for _, shot := range []struct {
		name, size string
	}{{"debug-locks.png", "1280,760"}, {"debug-locks-phone.png", "390,1600"}} {
		path := filepath.Join(t.ArtifactDir(), shot.name)
		runChromium(t.Context(), t, bin, "--screenshot="+path, "--window-size="+shot.size, url)
		checkPNG(t, path)
	}
}

// row is the start of the held-locks row of a lock, as the page renders it.
func row(key, exec string, token int64, owner string) string {
	return fmt.Sprintf(`<td class="key" data-label="key"><span>%s</span></td><td data-label="executor">%s</td><td data-label="kind">lock</td><td class="num mono" data-label="token">%d</td><td class="mono" data-label="owner">%s…</td>`,
		key, exec, token, owner[:8])
}

// checkPNG fails unless path is a PNG that shows more than one colour.
func checkPNG(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	b := img.Bounds()
	first := img.At(b.Min.X, b.Min.Y)
	for y := b.Min.Y; y < b.Max.Y; y += 7 {
		for x := b.Min.X; x < b.Max.X; x += 7 {
			if img.At(x, y) != first {
				return
			}
		}
	}
	t.Fatalf("%s is blank (%v)", path, b)
}
