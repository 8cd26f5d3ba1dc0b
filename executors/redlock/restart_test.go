package redlock_test

import (
	"errors"
	"testing"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/redlock"
	"github.com/lock4go/lock4go/internal/testserver"
)

// restartScenario takes a lock on masters 0 and 1 (master 2 blackholed),
// restarts master 1 and tries to take the lock again with another
// executor. It returns the first lease and the second attempt's outcome.
func restartScenario(t *testing.T, args ...string) (x, y executor.Lease, yErr error) {
	t.Helper()
	testserver.Check(t, mastersOK)
	srvs := make([]*testserver.Server, 3)
	a := make([]string, 3)
	for i := range srvs {
		s, err := testserver.StartRedis(args...)
		testserver.Check(t, err)
		t.Cleanup(func() { _ = s.Stop() })
		srvs[i], a[i] = s, s.Addr()
	}
	ps := proxies(t, a)
	holder := newExecutor(t, proxyAddrs(ps), redlock.Options{})
	other := newExecutor(t, a, redlock.Options{})
	k := key(t)
	ps[2].SetBlackhole(true)
	x, err := holder.Acquire(ctxFor(t, time.Second), request(k, time.Minute))
	if err != nil {
		t.Fatalf("Acquire on masters 0 and 1 = %v", err)
	}
	t.Cleanup(func() { _ = x.Release(t.Context()) })
	if err := srvs[1].Restart(); err != nil {
		t.Fatalf("Restart = %v", err)
	}
	y, yErr = other.Acquire(ctxFor(t, 5*time.Second), request(k, time.Minute))
	if y != nil {
		t.Cleanup(func() { _ = y.Release(t.Context()) })
	}
	return x, y, yErr
}

// TestRestart_withoutPersistence shows Redlock's known double holder
// (redsync #186): a master restarted without persistence forgets the lock
// it granted, and a second owner takes a majority (that master and the one
// that had missed the first acquisition) while the first still holds its
// lease. Fencing still orders them: the second token is above the first,
// so a resource that checks tokens refuses the first holder's writes once
// the second has written.
func TestRestart_withoutPersistence(t *testing.T) {
	x, y, err := restartScenario(t)
	if err != nil {
		t.Fatalf("second Acquire = %v; want the double holder of a master restarted without persistence", err)
	}
	if y.Token() <= x.Token() {
		t.Fatalf("second holder's token %d is not above the first's %d", y.Token(), x.Token())
	}
	t.Logf("two holders at once, tokens %d then %d", x.Token(), y.Token())
}

// TestRestart_withFsync is the mitigation the documentation recommends:
// with appendonly yes and appendfsync always the restarted master still
// holds the first owner's key (with its TTL), and the second owner finds no
// majority.
func TestRestart_withFsync(t *testing.T) {
	_, _, err := restartScenario(t, "--appendonly", "yes", "--appendfsync", "always")
	if !errors.Is(err, executor.ErrNotAcquired) {
		t.Fatalf("second Acquire after a restart with fsync = %v, want ErrNotAcquired", err)
	}
}
