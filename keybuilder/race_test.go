//go:build race

package keybuilder_test

// raceEnabled: the race detector slows code by a factor of its own, not
// the same for every kind of loop.
const raceEnabled = true
