package testserver

import (
	"path/filepath"
	"strconv"
)

// Faketime returns the environment that makes a program's wall clock run
// at rate times the real one through libfaketime (Debian's libfaketime
// package), for [StartPostgresEnv]: LD_PRELOAD of the library,
// FAKETIME="+0 x<rate>" and FAKETIME_DONT_FAKE_MONOTONIC=1 (the
// monotonic clock, which timeouts use, stays real). The library is loaded
// before the program's main, so processes it forks (PostgreSQL's backends)
// share its faked clock. It returns an error wrapping [ErrNotInstalled]
// when the library is missing.
func Faketime(rate float64) ([]string, error) {
	libs, _ := filepath.Glob("/usr/lib/*/faketime/libfaketime.so.1")
	if len(libs) == 0 {
		return nil, notInstalled("libfaketime")
	}
	return []string{
		"LD_PRELOAD=" + libs[0],
		"FAKETIME=+0 x" + strconv.FormatFloat(rate, 'f', -1, 64),
		"FAKETIME_DONT_FAKE_MONOTONIC=1",
	}, nil
}
