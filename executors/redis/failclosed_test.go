package redis_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	lock4go "github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executors/redis"
	"github.com/lock4go/lock4go/internal/testserver"
)

// Fail-closed acquisitions: a wrong password, a user without the lock
// keys, a server certificate the client does not trust. Each must give an
// error wrapping ErrBackend that names the cause and never a lock, after a
// bounded number of attempts, with each warning logged at most once; the
// test reports what the client and the server saw, including the
// background voids in the second after the call.
func TestFailClosed_acquire(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T) (addr string, admin *goredis.Client, opts []clientOpt)
		cause string
	}{
		{"wrong password", func(t *testing.T) (string, *goredis.Client, []clientOpt) {
			s := aclServer(t)
			return s.Addr(), newClient(t, s.Addr()), []clientOpt{asUser(aclUser, "not-"+aclPass)}
		}, "WRONGPASS"},
		{"no permission", func(t *testing.T) (string, *goredis.Client, []clientOpt) {
			s := aclServer(t)
			admin := newClient(t, s.Addr())
			return s.Addr(), admin, []clientOpt{asUser(newACLUser(t, admin, redis.ACLRules("other")), aclPass)}
		}, "NOPERM"},
		{"untrusted server certificate", func(t *testing.T) (string, *goredis.Client, []clientOpt) {
			s, certs := tlsServer(t)
			good, err := certs.ClientTLS()
			if err != nil {
				t.Fatal(err)
			}
			other, err := testserver.NewCerts(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			untrusted, err := other.ClientTLS()
			if err != nil {
				t.Fatal(err)
			}
			return s.Addr(), newClient(t, s.Addr(), withTLS(good)), []clientOpt{withTLS(untrusted), asUser(aclUser, aclPass)}
		}, "certificate signed by unknown authority"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr, admin, opts := tc.setup(t)
			failClosedAcquire(t, addr, admin, opts, tc.cause)
		})
	}
}

// failClosedAcquire makes one Lock call through a client of addr with opts,
// which must fail naming cause, and reports what it cost.
func failClosedAcquire(t *testing.T, addr string, admin *goredis.Client, opts []clientOpt, cause string) {
	const acquireTimeout, retryInterval = time.Second, 100 * time.Millisecond
	var dials atomic.Int64
	logs := newLogRecorder(t)
	e := newExecutor(t, newClient(t, addr, append(opts, ctxTimeouts, countDials(&dials))...), redis.Options{Logger: logs.logger()})
	tpl, err := lock4go.New(lock4go.Config{AcquireTimeout: acquireTimeout, RetryInterval: retryInterval, Logger: logs.logger()}, e)
	if err != nil {
		t.Fatal(err)
	}
	before, conns := serverCounts(t, admin)
	start := time.Now()
	l, err := tpl.Lock(t.Context(), uniq(t, "lock4go:failclosed:"))
	took := time.Since(start)
	if l != nil || err == nil {
		t.Fatalf("Lock = %v, %v; want no lock", l, err)
	}
	var ae *lock4go.AcquireError
	if !errors.Is(err, lock4go.ErrBackend) || !strings.Contains(err.Error(), cause) || !errors.As(err, &ae) {
		t.Fatalf("Lock = %v; want an *AcquireError wrapping ErrBackend naming %q", err, cause)
	}
	if max := int(acquireTimeout/retryInterval) + 2; ae.Attempts > max {
		t.Errorf("%d attempts in %v, want at most %d", ae.Attempts, took, max)
	}
	atLock := dials.Load()
	mid, midConns := serverCounts(t, admin)
	time.Sleep(time.Second) // what keeps going in the background: the voids
	after, afterConns := serverCounts(t, admin)
	t.Logf("%v after %d attempts in %v; client dials %d during Lock, %d in the next second; server: %s during Lock, %s in the next second",
		err, ae.Attempts, took.Round(time.Millisecond), atLock, dials.Load()-atLock,
		countsDelta(before, conns, mid, midConns), countsDelta(mid, midConns, after, afterConns))
	logs.checkOncePerCause(t)
}

// A permission revoked while a watchdog lock is held ends the lock as lost
// once renewals fail: Done closes and Err wraps ErrLockLost and names the
// cause. ACL SETUSER off alone does not revoke: Redis keeps the user's
// authenticated connections, so renewals go on until they are killed.
func TestFailClosed_revokedWhileHeld(t *testing.T) {
	const expire = 1500 * time.Millisecond
	for _, tc := range []struct {
		name   string
		revoke [][]string // commands; "$USER" stands for the user
		cause  string     // "" means the lock stays held
	}{
		{"key patterns removed", [][]string{{"ACL", "SETUSER", "$USER", "resetkeys", "~other:*"}}, "NOPERM"},
		{"user deleted", [][]string{{"ACL", "DELUSER", "$USER"}}, "WRONGPASS"},
		{"user disabled and disconnected", [][]string{{"ACL", "SETUSER", "$USER", "off"}, {"CLIENT", "KILL", "USER", "$USER"}}, "WRONGPASS"},
		{"user disabled only", [][]string{{"ACL", "SETUSER", "$USER", "off"}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := aclServer(t)
			admin := newClient(t, s.Addr())
			user := newACLUser(t, admin, redis.ACLRules("lock4go"))
			logs := newLogRecorder(t)
			e, err := redis.New(newClient(t, s.Addr(), ctxTimeouts, asUser(user, aclPass)), redis.Options{Logger: logs.logger()})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				// Close releases what is still held: refused, as the lock.
				if err := e.Close(); err != nil && (tc.cause == "" || !strings.Contains(err.Error(), tc.cause)) {
					t.Errorf("Close = %v", err)
				}
			})
			tpl, err := lock4go.New(lock4go.Config{Expire: expire, Logger: logs.logger()}, e)
			if err != nil {
				t.Fatal(err)
			}
			key := uniq(t, "lock4go:revoked:")
			l, err := tpl.Lock(t.Context(), key)
			if err != nil {
				t.Fatal(err)
			}
			revoked := time.Now()
			runAs(t, admin, user, tc.revoke)
			if tc.cause == "" {
				checkStillHeld(t, admin, l, expire, revoked)
				return
			}
			checkLostTo(t, l, tc.cause, expire, revoked, tc.name)
			logs.checkOncePerCause(t)
		})
	}
}

// checkLostTo checks that l, whose user was revoked at revoked, is lost
// within three times expire, with an error naming want, and that its
// Release then reports it not held.
func checkLostTo(t *testing.T, l *lock4go.Lock, want string, expire time.Duration, revoked time.Time, name string) {
	t.Helper()
	select {
	case <-l.Done():
	case <-time.After(3 * expire):
		t.Fatalf("lock not lost %v after the revocation", time.Since(revoked))
	}
	told := time.Since(revoked)
	if err := l.Err(); !errors.Is(err, lock4go.ErrLockLost) || !strings.Contains(err.Error(), want) {
		t.Fatalf("Err = %v; want ErrLockLost naming %q", err, want)
	}
	if err := l.Release(t.Context()); !errors.Is(err, lock4go.ErrLockNotHeld) {
		t.Fatalf("Release of a lost lock = %v, want ErrLockNotHeld", err)
	}
	t.Logf("%s: told lost %v after the revocation (Expire %v): %v", name, told.Round(time.Millisecond), expire, l.Err())
}

// runAs runs cmds through admin, with "$USER" replaced by user.
func runAs(t *testing.T, admin *goredis.Client, user string, cmds [][]string) {
	t.Helper()
	for _, cmd := range cmds {
		args := make([]any, len(cmd))
		for i, a := range cmd {
			if a == "$USER" {
				a = user
			}
			args[i] = a
		}
		if err := admin.Do(t.Context(), args...).Err(); err != nil {
			t.Fatalf("%v: %v", cmd, err)
		}
	}
}

// checkStillHeld checks that l, a lock with a watchdog lease of expire,
// is still held and renewed two leases after revoked.
func checkStillHeld(t *testing.T, admin *goredis.Client, l *lock4go.Lock, expire time.Duration, revoked time.Time) {
	t.Helper()
	select {
	case <-l.Done():
		t.Fatalf("lock lost after %v: %v", time.Since(revoked), l.Err())
	case <-time.After(2 * expire):
	}
	if ttl := admin.PTTL(t.Context(), l.Key()).Val(); ttl < expire/2 {
		t.Fatalf("PTTL %v %v after the revocation: renewals stopped", ttl, time.Since(revoked))
	}
	t.Logf("still held and renewed %v later (the connection stays authenticated)", time.Since(revoked).Round(time.Millisecond))
	if err := l.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
}

// countDials makes a client count its dial attempts (TLS handshakes
// included).
func countDials(n *atomic.Int64) clientOpt {
	return func(o *goredis.Options) {
		dial := goredis.NewDialer(o)
		o.Dialer = func(ctx context.Context, network, addr string) (net.Conn, error) {
			n.Add(1)
			return dial(ctx, network, addr)
		}
	}
}

// serverCounts returns the server's command counters and how many
// connections it has accepted.
func serverCounts(t *testing.T, admin *goredis.Client) (map[string]cmdStat, int64) {
	t.Helper()
	info, err := admin.Info(t.Context(), "stats").Result()
	if err != nil {
		t.Fatal(err)
	}
	var conns int64
	for line := range strings.Lines(info) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "total_connections_received:"); ok {
			conns, _ = strconv.ParseInt(v, 10, 64)
		}
	}
	return commandStats(t, admin), conns
}

// countsDelta describes the commands (executed, refused, failed) and the
// connections between two serverCounts, leaving out the admin's INFO.
func countsDelta(before map[string]cmdStat, bconns int64, after map[string]cmdStat, aconns int64) string {
	var parts []string
	for name, a := range after {
		b := before[name]
		d := cmdStat{calls: a.calls - b.calls, rejected: a.rejected - b.rejected, failed: a.failed - b.failed}
		if name == "info" || d == (cmdStat{}) {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %d/%d/%d", name, d.calls, d.rejected, d.failed))
	}
	sort.Strings(parts)
	return fmt.Sprintf("[%s] (calls/refused/failed), %d connections accepted", strings.Join(parts, ", "), aconns-bconns)
}

// logRecorder keeps every record logged through its loggers, and forwards
// them to the test's log.
type logRecorder struct {
	next slog.Handler
	mu   *sync.Mutex
	recs *[]slog.Record
}

func newLogRecorder(t *testing.T) logRecorder {
	return logRecorder{next: testLogger(t).Handler(), mu: new(sync.Mutex), recs: new([]slog.Record)}
}

func (r logRecorder) logger() *slog.Logger { return slog.New(r) }

func (r logRecorder) Enabled(ctx context.Context, l slog.Level) bool { return r.next.Enabled(ctx, l) }

func (r logRecorder) Handle(ctx context.Context, rec slog.Record) error {
	r.mu.Lock()
	*r.recs = append(*r.recs, rec.Clone())
	r.mu.Unlock()
	return r.next.Handle(ctx, rec)
}

func (r logRecorder) WithAttrs(as []slog.Attr) slog.Handler {
	r.next = r.next.WithAttrs(as)
	return r
}

func (r logRecorder) WithGroup(name string) slog.Handler {
	r.next = r.next.WithGroup(name)
	return r
}

// checkOncePerCause fails the test when a warning or error message was
// logged more than once.
func (r logRecorder) checkOncePerCause(t *testing.T) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	seen := map[string]int{}
	for _, rec := range *r.recs {
		if rec.Level >= slog.LevelWarn {
			seen[rec.Level.String()+" "+rec.Message]++
		}
	}
	for msg, n := range seen {
		if n > 1 {
			t.Errorf("logged %d times: %s", n, msg)
		}
	}
}
