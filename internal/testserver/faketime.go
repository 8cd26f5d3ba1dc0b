package testserver

import "path/filepath"

// Faketime returns the environment that fakes a program's wall clock
// through libfaketime (Debian's libfaketime package), for
// [StartPostgresEnv]: LD_PRELOAD of the library, FAKETIME=spec and
// FAKETIME_DONT_FAKE_MONOTONIC=1 (the monotonic clock, which timeouts use,
// stays real). spec is libfaketime's: "+0 x1.1" runs the clock 10% fast
// from now, "+3600 x1" an hour ahead (see the library's README). The
// library is loaded before the program's main, so the processes it forks
// (PostgreSQL's backends) share its faked clock. It returns an error
// wrapping [ErrNotInstalled] when the library is missing.
func Faketime(spec string) ([]string, error) {
	libs, _ := filepath.Glob("/usr/lib/*/faketime/libfaketime.so.1")
	if len(libs) == 0 {
		return nil, notInstalled("libfaketime")
	}
	return []string{"LD_PRELOAD=" + libs[0], "FAKETIME=" + spec, "FAKETIME_DONT_FAKE_MONOTONIC=1"}, nil
}
