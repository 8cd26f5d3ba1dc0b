//go:build race

package lock4go_test

// raceEnabled: under the race detector sync.Pool drops a share of what is
// put back, so allocation counts that rely on a pool do not hold.
const raceEnabled = true
