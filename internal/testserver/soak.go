package testserver

import "os"

// SoakEnv is the environment variable that asks the tests for their long
// settings (make soak): repetitions of each fault, longer runs, the large
// inventories. Without it every kind of fault still runs once, with the
// shortest settings that exercise it.
const SoakEnv = "LOCK4GO_SOAK"

// Soak reports whether [SoakEnv] is set to 1.
func Soak() bool { return os.Getenv(SoakEnv) == "1" }

// Pick returns short, or long under [SoakEnv]=1.
func Pick[T any](short, long T) T {
	if Soak() {
		return long
	}
	return short
}
