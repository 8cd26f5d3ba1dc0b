//go:build !race

package lock4go_test

const raceEnabled = false
