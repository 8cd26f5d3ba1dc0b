package testserver

import (
	"errors"
	"os"
	"testing"
)

// RequireEnv is the environment variable that turns a missing backend into a
// test failure instead of a skip when set to "1".
const RequireEnv = "LOCK4GO_REQUIRE_BACKENDS"

// Check reports a server start error to tb. A nil err does nothing. An error
// wrapping [ErrNotInstalled] skips the test, or fails it when
// LOCK4GO_REQUIRE_BACKENDS=1; any other error fails the test.
func Check(tb testing.TB, err error) {
	tb.Helper()
	if err == nil {
		return
	}
	if errors.Is(err, ErrNotInstalled) && os.Getenv(RequireEnv) != "1" {
		tb.Skip(err.Error())
		return
	}
	tb.Fatal(err)
}
