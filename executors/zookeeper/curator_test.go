package zookeeper

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lock4go/lock4go/executor"
)

// curatorJars are the jars of Debian's libcurator-recipes-java and its
// dependencies that testdata/curator/Driver.java needs.
var curatorJars = []string{
	"curator-framework", "curator-client", "curator-recipes", "zookeeper", "zookeeper-jute",
	"guava", "slf4j-api", "slf4j-nop",
}

// curator is a running Java process of testdata/curator/Driver.java: a
// Curator client driven one command at a time.
type curator struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *strings.Builder
	lines  chan string
}

// startCurator compiles the driver and starts it against addr. A missing
// JDK or Curator fails the test: scripts/setup.sh installs them.
func startCurator(t *testing.T, addr string) *curator {
	t.Helper()
	var cp []string
	for _, j := range curatorJars {
		p := "/usr/share/java/" + j + ".jar"
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("%s is missing (Debian's libcurator-recipes-java): run scripts/setup.sh", p)
		}
		cp = append(cp, p)
	}
	javac, err := exec.LookPath("javac")
	if err != nil {
		t.Fatal("javac is missing (Debian's default-jdk-headless): run scripts/setup.sh")
	}
	dir := t.TempDir()
	classpath := strings.Join(cp, ":")
	if out, err := exec.Command(javac, "-d", dir, "-cp", classpath, filepath.Join("testdata", "curator", "Driver.java")).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	c := &curator{stderr: &strings.Builder{}, lines: make(chan string, 1)}
	c.cmd = exec.Command("java", "-cp", dir+":"+classpath, "Driver", addr)
	c.cmd.Stderr = c.stderr
	if c.in, err = c.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := c.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
	}()
	t.Cleanup(c.stop)
	if got := c.read(t, 60*time.Second); got != "READY" {
		t.Fatalf("Curator driver said %q, want READY; stderr:\n%s", got, c.stderr)
	}
	return c
}

// read returns the driver's next line, failing the test after timeout.
func (c *curator) read(t *testing.T, timeout time.Duration) string {
	t.Helper()
	select {
	case l, ok := <-c.lines:
		if !ok {
			t.Fatalf("Curator driver exited; stderr:\n%s", c.stderr)
		}
		return l
	case <-time.After(timeout):
		t.Fatalf("no answer from the Curator driver in %v; stderr:\n%s", timeout, c.stderr)
	}
	return ""
}

// send sends a command without waiting for its answer (a blocking acquire
// the test answers by releasing); read the answer with read.
func (c *curator) send(t *testing.T, cmd string) {
	t.Helper()
	if _, err := fmt.Fprintln(c.in, cmd); err != nil {
		t.Fatalf("Curator driver: %v", err)
	}
}

// do sends a command and returns its answer.
func (c *curator) do(t *testing.T, cmd string) string {
	t.Helper()
	c.send(t, cmd)
	return c.read(t, 30*time.Second)
}

// stop ends the driver: quit, or kill after 10s.
func (c *curator) stop() {
	_, _ = fmt.Fprintln(c.in, "quit")
	_ = c.in.Close()
	done := make(chan struct{})
	go func() {
		_ = c.cmd.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = c.cmd.Process.Kill()
		<-done
	}
}

func wantAnswer(t *testing.T, got, want, what string) {
	t.Helper()
	if got != want {
		t.Fatalf("%s: Curator answered %q, want %q", what, got, want)
	}
}

// TestInterop_curatorMutex checks that a real Curator InterProcessMutex (a
// Java process, as Lock4j's ZooKeeper executor uses it) and the executor
// exclude each other on the same path, both ways.
func TestInterop_curatorMutex(t *testing.T) {
	addr := server(t)
	e := newExecutor(t, dial(t, testSession, addr), Options{})
	c := startCurator(t, addr)
	key := "curator-mutex:" + t.Name()
	path := e.keyPath(key)

	wantAnswer(t, c.do(t, "mutex "+path+" 5000"), "OK", "mutex on a free path")
	if _, err := e.Acquire(t.Context(), req(key, false)); !errors.Is(err, executor.ErrNotAcquired) {
		t.Fatalf("TryLock while Curator holds = %v, want ErrNotAcquired", err)
	}
	got := make(chan error, 1)
	go func() {
		l, err := e.Acquire(t.Context(), req(key, true))
		if err == nil {
			err = l.Release(t.Context())
		}
		got <- err
	}()
	awaitWaiters(t, e, key, 1)
	wantAnswer(t, c.do(t, "unmutex "+path), "OK", "unmutex")
	if err := <-got; err != nil {
		t.Fatalf("waiter after Curator's release: %v", err)
	}

	l, err := e.Acquire(t.Context(), req(key, false))
	if err != nil {
		t.Fatal(err)
	}
	wantAnswer(t, c.do(t, "mutex "+path+" 300"), "BUSY", "mutex while lock4go holds")
	c.send(t, "mutex "+path+" 20000")
	awaitWaiters(t, e, key, 1)
	if err := l.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	wantAnswer(t, c.read(t, 30*time.Second), "OK", "mutex after lock4go's release")
	wantAnswer(t, c.do(t, "unmutex "+path), "OK", "unmutex")
}

// TestInterop_curatorReadWriteLock checks lock4go's read and write locks
// (Options.RWLockLayout) against a real Curator
// InterProcessReadWriteLock on the same path: readers share, writers
// exclude both ways, a waiting writer of either side keeps the other
// side's later readers out, and the nodes are Curator's.
func TestInterop_curatorReadWriteLock(t *testing.T) {
	addr := server(t)
	e := newExecutor(t, dial(t, testSession, addr), Options{RWLockLayout: true})
	c := startCurator(t, addr)
	key := "curator-rw:" + t.Name()
	path := e.keyPath(key)
	read := func(wait bool) executor.Request {
		r := req(key, wait)
		r.Shared = true
		return r
	}

	// Curator reads: lock4go reads beside it, lock4go's writer waits.
	wantAnswer(t, c.do(t, "read "+path+" 5000"), "OK", "read on a free path")
	r, err := e.Acquire(t.Context(), read(false))
	if err != nil {
		t.Fatalf("lock4go read beside a Curator reader: %v", err)
	}
	if _, err := e.Acquire(t.Context(), req(key, false)); !errors.Is(err, executor.ErrNotAcquired) {
		t.Fatalf("lock4go write beside readers = %v, want ErrNotAcquired", err)
	}
	children := c.do(t, "children "+path)
	if strings.Count(children, readName) != 2 {
		t.Fatalf("children = %q, want two %s nodes", children, readName)
	}
	wantAnswer(t, c.do(t, "write "+path+" 300"), "BUSY", "Curator write beside readers")

	// A lock4go writer waits behind both readers; a later Curator reader
	// queues behind it.
	writer := make(chan executor.Lease, 1)
	errc := make(chan error, 1)
	go func() {
		l, err := e.Acquire(t.Context(), req(key, true))
		if err != nil {
			errc <- err
			return
		}
		writer <- l
	}()
	awaitWaiters(t, e, key, 1)
	if !strings.Contains(c.do(t, "children "+path), writeName) {
		t.Fatal("lock4go's write node is not a Curator write node")
	}
	// The driver's thread already holds a read lock (Curator re-enters
	// it), so the later reader is lock4go's.
	if _, err := e.Acquire(t.Context(), read(false)); !errors.Is(err, executor.ErrNotAcquired) {
		t.Fatalf("a reader got in beside the waiting writer: %v", err)
	}
	wantAnswer(t, c.do(t, "unread "+path), "OK", "unread")
	if err := r.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	var w executor.Lease
	select {
	case w = <-writer:
	case err := <-errc:
		t.Fatal(err)
	case <-time.After(20 * time.Second):
		t.Fatal("lock4go writer not granted after the readers left")
	}

	// lock4go writes: Curator's reader and writer wait, then get in.
	wantAnswer(t, c.do(t, "read "+path+" 300"), "BUSY", "Curator read while lock4go writes")
	wantAnswer(t, c.do(t, "write "+path+" 300"), "BUSY", "Curator write while lock4go writes")
	c.send(t, "read "+path+" 20000")
	awaitWaiters(t, e, key, 1)
	if err := w.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	wantAnswer(t, c.read(t, 30*time.Second), "OK", "Curator read after lock4go's write")
	wantAnswer(t, c.do(t, "unread "+path), "OK", "unread")

	// Curator writes: lock4go's reader waits for it.
	wantAnswer(t, c.do(t, "write "+path+" 5000"), "OK", "Curator write")
	if _, err := e.Acquire(t.Context(), read(false)); !errors.Is(err, executor.ErrNotAcquired) {
		t.Fatalf("lock4go read while Curator writes = %v, want ErrNotAcquired", err)
	}
	got := make(chan error, 1)
	go func() {
		l, err := e.Acquire(t.Context(), read(true))
		if err == nil {
			err = l.Release(t.Context())
		}
		got <- err
	}()
	awaitWaiters(t, e, key, 1)
	wantAnswer(t, c.do(t, "unwrite "+path), "OK", "unwrite")
	if err := <-got; err != nil {
		t.Fatalf("lock4go reader after Curator's write: %v", err)
	}
}

// TestInterop_curatorSemaphore checks lock4go's permits against a real
// Curator InterProcessSemaphoreV2 of the same size on the same path: they
// count each other's leases, and a waiter of either side gets the permit
// the other returns.
func TestInterop_curatorSemaphore(t *testing.T) {
	addr := server(t)
	e := newExecutor(t, dial(t, testSession, addr), Options{})
	c := startCurator(t, addr)
	key := "curator-sem:" + t.Name()
	path := e.keyPath(key)
	permit := func(wait bool) executor.Request {
		r := req(key, wait)
		r.Permits = 2
		return r
	}

	wantAnswer(t, c.do(t, "sem "+path+" 2 5000"), "OK", "first lease")
	mine, err := e.Acquire(t.Context(), permit(false))
	if err != nil {
		t.Fatalf("lock4go permit beside one Curator lease of two: %v", err)
	}
	if children := c.do(t, "children "+path); !strings.Contains(children, semLeases) || !strings.Contains(children, semLocks) {
		t.Fatalf("children = %q, want Curator's %s and %s", children, semLocks, semLeases)
	}
	wantAnswer(t, c.do(t, "sem "+path+" 2 300"), "BUSY", "third lease, Curator's")
	if _, err := e.Acquire(t.Context(), permit(false)); !errors.Is(err, executor.ErrNotAcquired) {
		t.Fatalf("third lease, lock4go's = %v, want ErrNotAcquired", err)
	}

	// A lock4go waiter gets the lease Curator returns.
	got := make(chan executor.Lease, 1)
	errc := make(chan error, 1)
	go func() {
		l, err := e.Acquire(t.Context(), permit(true))
		if err != nil {
			errc <- err
			return
		}
		got <- l
	}()
	awaitWaiters(t, e, key, 1)
	wantAnswer(t, c.do(t, "unsem "+path), "OK", "unsem")
	var second executor.Lease
	select {
	case second = <-got:
	case err := <-errc:
		t.Fatal(err)
	case <-time.After(20 * time.Second):
		t.Fatal("lock4go waiter not granted the returned lease")
	}

	// A Curator waiter gets the permit lock4go returns.
	c.send(t, "sem "+path+" 2 20000")
	awaitWaiters(t, e, key, 1)
	if err := mine.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	wantAnswer(t, c.read(t, 30*time.Second), "OK", "Curator lease after lock4go's release")
	wantAnswer(t, c.do(t, "unsem "+path), "OK", "unsem")
	if err := second.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
}
