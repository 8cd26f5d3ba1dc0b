// Package exectest holds what the tests of the executors share: an
// executor made for one test and closed at its end ([Closing]), the end
// of a package's TestMain ([Exit]), and, for the lease-table executors,
// the claim-lapse cases ([Lapse]), lost replies ([LostReplies]) and the
// SQL blocks of their docs ([SQLBlocks], [SchemaAppendix]).
package exectest

import (
	"fmt"
	"io"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/lock4go/lock4go/internal/testserver"
)

// Closing returns e, which a constructor returned with err, and closes it
// at the end of the test, which fails if Close returns an error. It fails
// the test at once when err is not nil.
func Closing[E io.Closer](t testing.TB, e E, err error) E {
	t.Helper()
	if err != nil {
		t.Fatalf("New = %v", err)
	}
	t.Cleanup(func() {
		if err := e.Close(); err != nil {
			t.Errorf("Close = %v", err)
		}
	})
	return e
}

// Exit ends a package's TestMain with code, m.Run's: it stops servers
// (nil ones are skipped; a paused one is resumed first, in case a fault
// test failed before its cleanup), checks that no goroutine leaked when
// the tests passed (a leak makes the code 1), and exits.
func Exit(code int, servers ...*testserver.Server) {
	for _, s := range servers {
		if s != nil {
			_ = s.Resume()
			_ = s.Stop()
		}
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}
