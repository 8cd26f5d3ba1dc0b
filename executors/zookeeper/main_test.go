package zookeeper

import (
	"fmt"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lock4go/lock4go/internal/exectest"
	"github.com/lock4go/lock4go/internal/testserver"
)

// The package's shared standalone server; tests that kill or pause a server
// start their own.
var (
	zkSrv *testserver.Server
	zkErr error
)

func TestMain(m *testing.M) {
	zkSrv, zkErr = testserver.StartZooKeeper()
	code := m.Run()
	stopTLSServer()
	// Every conn and executor is closed by its test's cleanup, so no
	// goroutine of go-zookeeper or of the executor may remain.
	exectest.Exit(code, zkSrv)
}

// testSession is the session timeout of most test conns: long enough not to
// expire under the race detector, short enough for failure tests.
const testSession = 4 * time.Second

// server returns the shared server's address, skipping the test when
// ZooKeeper is not installed.
func server(t testing.TB) string {
	t.Helper()
	testserver.Check(t, zkErr)
	return zkSrv.Addr()
}

// dial connects to addrs with the given session timeout, waits for the
// session and closes the conn at the end of the test.
func dial(t testing.TB, session time.Duration, addrs ...string) *zk.Conn {
	t.Helper()
	conn, events, err := Dial(addrs, session)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	deadline := time.After(15 * time.Second)
	for {
		select {
		case ev := <-events:
			if ev.State == zk.StateHasSession {
				return conn
			}
		case <-deadline:
			t.Fatalf("no ZooKeeper session with %v", addrs)
		}
	}
}

// newExecutor returns an executor over conn, closed at the end of the test
// (before conn, since cleanups run last-registered first).
func newExecutor(t testing.TB, conn *zk.Conn, o Options) *Executor {
	t.Helper()
	e, err := New(conn, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	return e
}

// basePath returns a base path unique to the test.
func basePath(t testing.TB) string {
	return fmt.Sprintf("/lock4go-test/%d", time.Now().UnixNano())
}
