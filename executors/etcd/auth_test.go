package etcd_test

import (
	"context"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executor/executortest"
	"github.com/lock4go/lock4go/executors/etcd"
)

// The conformance suite over TLS (client certificate) as a user whose role
// may read and write the lock prefix only.
func TestExecutor_conformance_tlsLeastPrivilege(t *testing.T) {
	s, certs := authServer(t)
	executortest.Run(t, func(t *testing.T) executor.Executor {
		cli, err := tlsClient(t, s, clientTLS(t, certs), lockUser, lockPassword)
		if err != nil {
			t.Fatal(err)
		}
		return newExec(t, cli, etcd.Options{Prefix: lockPrefix})
	}, conformanceOptions)
}

// With a user and password, clientv3 authenticates again (a bcrypt check
// on the server, ~90 ms) for each gRPC stream it opens. Hand-offs (a watch
// each) and renewals (a keep-alive each) must not open a stream each: the
// executor keeps one watch stream and one keep-alive stream, so a series
// of them costs at most one authentication per stream.
func TestExecutor_auth_streamsKept(t *testing.T) {
	s, certs := authServer(t)
	cli, err := tlsClient(t, s, clientTLS(t, certs), lockUser, lockPassword)
	if err != nil {
		t.Fatal(err)
	}
	e := newExec(t, cli, etcd.Options{Prefix: lockPrefix})
	k := uniqueKey(t)
	before := authentications(t, s, certs)
	holder := mustAcquire(t, e, fixed(k, 10*time.Second, false))
	const rounds = 8
	for range rounds {
		ch := acquireAsync(t.Context(), e, fixed(k, 10*time.Second, true))
		waitForEntries(t, cli, lockPrefix+k, 2) // queued: its watch is open
		if err := holder.Renew(t.Context(), 10*time.Second); err != nil {
			t.Fatalf("Renew = %v", err)
		}
		mustRelease(t, holder)
		holder = outcome(t, ch)
	}
	mustRelease(t, holder)
	if n := authentications(t, s, certs) - before; n > 2 {
		t.Errorf("%d hand-offs and renewals made %d authentications; want at most 2 (one per stream kept)", rounds, n)
	}
}

// waitForEntries waits until the lock directory dir holds n keys. It
// polls with reads: a watch would open a stream, and authenticate, on the
// server whose authentications the caller counts.
func waitForEntries(t *testing.T, cli *clientv3.Client, dir string, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := cli.Get(t.Context(), dir+"/", clientv3.WithPrefix(), clientv3.WithCountOnly())
		if err != nil {
			t.Fatal(err)
		}
		if resp.Count >= int64(n) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d entries after 10s; want %d", dir, resp.Count, n)
		}
		time.Sleep(time.Millisecond)
	}
}

// The client behaviour the executor works around (watchstream.go,
// renewstream.go), shown on clientv3 alone: with a password, each watch
// opened after the previous one ended opens a gRPC stream and
// authenticates again, each KeepAliveOnce too; with one watch held open,
// later watches share its stream and authenticate no more. If this test
// fails because clientv3 stopped authenticating per stream, the executor's
// held streams can go.
func TestClientv3_authenticatesPerStream(t *testing.T) {
	s, certs := authServer(t)
	cli, err := tlsClient(t, s, clientTLS(t, certs), lockUser, lockPassword)
	if err != nil {
		t.Fatal(err)
	}
	watches := func() {
		for range 3 {
			ctx, cancel := context.WithCancel(clientv3.WithRequireLeader(t.Context()))
			wch := cli.Watch(ctx, lockPrefix+"probe", clientv3.WithCreatedNotify())
			<-wch // created
			cancel()
			for range wch { // until the client has closed the watch
			}
		}
	}
	before := authentications(t, s, certs)
	watches()
	opened := authentications(t, s, certs) - before
	ctx, cancel := context.WithCancel(clientv3.WithRequireLeader(t.Context()))
	defer cancel()
	<-cli.Watch(ctx, lockPrefix+"held", clientv3.WithCreatedNotify())
	before = authentications(t, s, certs)
	watches()
	held := authentications(t, s, certs) - before
	t.Logf("3 watches one after another: %d authentications; beside a held watch: %d", opened, held)
	if held != 0 {
		t.Errorf("watches beside a held one authenticated %d times; want 0", held)
	}
	if opened == 0 {
		t.Logf("clientv3 no longer authenticates per stream: the executor's held streams may be unneeded")
	}
}
