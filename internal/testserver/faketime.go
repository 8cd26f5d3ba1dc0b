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
	lib, err := faketimeLib()
	if err != nil {
		return nil, err
	}
	return []string{"LD_PRELOAD=" + lib, "FAKETIME=" + spec, "FAKETIME_DONT_FAKE_MONOTONIC=1"}, nil
}

// FaketimeFile returns the environment that fakes a program's wall clock
// as [Faketime] does, with the spec read from the file at path at every
// clock read (FAKETIME_TIMESTAMP_FILE, FAKETIME_NO_CACHE=1): a test moves
// the clock of a running server by rewriting the file, which the server's
// user must be able to read. "+0" is the real clock.
func FaketimeFile(path string) ([]string, error) {
	lib, err := faketimeLib()
	if err != nil {
		return nil, err
	}
	return []string{"LD_PRELOAD=" + lib, "FAKETIME_TIMESTAMP_FILE=" + path, "FAKETIME_NO_CACHE=1", "FAKETIME_DONT_FAKE_MONOTONIC=1"}, nil
}

// faketimeLib returns the path of libfaketime.
func faketimeLib() (string, error) {
	libs, _ := filepath.Glob("/usr/lib/*/faketime/libfaketime.so.1")
	if len(libs) == 0 {
		return "", notInstalled("libfaketime")
	}
	return libs[0], nil
}
