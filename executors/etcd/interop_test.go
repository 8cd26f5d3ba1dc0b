package etcd_test

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.etcd.io/etcd/client/v3/concurrency"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/etcd"
	"github.com/lock4go/lock4go/internal/testserver"
)

// etcdctlLock runs `etcdctl lock key` against addr and returns a channel
// that receives each line it prints (it prints "<key>/<lease hex>" once it
// holds the lock) and a function that interrupts it (etcdctl releases on
// SIGINT) and waits for it to exit.
func etcdctlLock(t *testing.T, addr, key string) (lines <-chan string, interrupt func()) {
	t.Helper()
	path, err := exec.LookPath("etcdctl")
	if err != nil {
		testserver.Check(t, testserver.ErrNotInstalled)
	}
	cmd := exec.Command(path, "--endpoints=http://"+addr, "lock", key)
	cmd.Env = append(os.Environ(), "ETCDCTL_API=3")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ch := make(chan string, 4)
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			ch <- sc.Text()
		}
	}()
	exited := false
	interrupt = func() {
		if exited {
			return
		}
		exited = true
		_ = cmd.Process.Signal(syscall.SIGINT)
		<-readDone
		_ = cmd.Wait()
	}
	t.Cleanup(func() {
		if !exited {
			_ = cmd.Process.Kill() // only the process this test started
			interrupt()
		}
	})
	return ch, interrupt
}

func TestInterop_etcdctlHoldsLock(t *testing.T) {
	testserver.Check(t, srvErr)
	e := newExec(t, newClient(t, srv.Addr()), etcd.Options{})
	k := uniqueKey(t)
	lines, interrupt := etcdctlLock(t, srv.Addr(), k)
	select {
	case line := <-lines:
		if !strings.HasPrefix(line, k+"/") {
			t.Fatalf("etcdctl printed %q, want %s/<lease>", line, k)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("etcdctl did not take a free lock")
	}
	mustBeBusy(t, e, k)
	h, err := e.Inspect(t.Context(), k)
	if err != nil || h.Owner != "" || h.Token <= 0 {
		t.Fatalf("Inspect while etcdctl holds = %+v, %v", h, err)
	}
	ch := acquireAsync(t.Context(), e, watchdog(k, true))
	notYet(t, ch, 300*time.Millisecond)
	interrupt()
	mustRelease(t, outcome(t, ch))
}

func TestInterop_lock4goBlocksEtcdctl(t *testing.T) {
	testserver.Check(t, srvErr)
	e := newExec(t, newClient(t, srv.Addr()), etcd.Options{})
	k := uniqueKey(t)
	l := mustAcquire(t, e, watchdog(k, false))
	lines, interrupt := etcdctlLock(t, srv.Addr(), k)
	select {
	case line := <-lines:
		t.Fatalf("etcdctl took a lock lock4go holds: %q", line)
	case <-time.After(500 * time.Millisecond):
	}
	mustRelease(t, l)
	select {
	case line := <-lines:
		if !strings.HasPrefix(line, k+"/") {
			t.Fatalf("etcdctl printed %q, want %s/<lease>", line, k)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("etcdctl did not get the lock after lock4go released it")
	}
	mustBeBusy(t, e, k)
	interrupt()
}

// concurrency.Mutex, the library behind etcdctl lock, in both directions.
func TestInterop_concurrencyMutex(t *testing.T) {
	testserver.Check(t, srvErr)
	cli := newClient(t, srv.Addr())
	e := newExec(t, cli, etcd.Options{})
	s, err := concurrency.NewSession(cli, concurrency.WithTTL(10))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	k := uniqueKey(t)
	m := concurrency.NewMutex(s, k)

	l := mustAcquire(t, e, fixed(k, 10*time.Second, false))
	if err := m.TryLock(t.Context()); !errors.Is(err, concurrency.ErrLocked) {
		t.Fatalf("Mutex.TryLock while lock4go holds = %v, want ErrLocked", err)
	}
	mustRelease(t, l)
	if err := m.Lock(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got, err := e.Inspect(t.Context(), k); err != nil || got.Token != m.Header().Revision {
		t.Fatalf("Inspect = %+v, %v; want token %d", got, err, m.Header().Revision)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	if _, err := e.Acquire(ctx, watchdog(k, true)); !errors.Is(err, executor.ErrNotAcquired) {
		t.Fatalf("waiting Acquire while the Mutex holds = %v, want ErrNotAcquired", err)
	}
	ch := acquireAsync(t.Context(), e, watchdog(k, true))
	notYet(t, ch, 200*time.Millisecond)
	if err := m.Unlock(t.Context()); err != nil {
		t.Fatal(err)
	}
	mustRelease(t, outcome(t, ch))
}
