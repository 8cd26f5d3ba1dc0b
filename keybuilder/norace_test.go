//go:build !race

package keybuilder_test

const raceEnabled = false
