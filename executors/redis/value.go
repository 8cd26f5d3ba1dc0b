package redis

import (
	"strconv"
	"strings"
)

// Values of a lock key that lock4go writes (see lua/lib.lua and
// docs/redis.md, "Values of the lock key"): a base, a NUL, the key's last
// fencing token in decimal, and flags (lower-case letters).
const (
	// sharesMarker starts the base of a key held by read locks or permits:
	// "lock4go:shares:<kind>".
	sharesMarker = "lock4go:shares:"
	// floorMarker is the base of a free key whose last token is ahead of
	// the server clock.
	floorMarker = "lock4go:floor"
)

// parseValue splits v, a value of a lock key, into its base (the owner of
// a lock, a claim, the shares marker, the floor) and token. It reports
// false for a value lock4go did not write (another program's lock).
func parseValue(v string) (base string, token int64, ok bool) {
	i := strings.LastIndexByte(v, 0)
	if i < 0 {
		return "", 0, false
	}
	digits := strings.TrimRight(v[i+1:], "abcdefghijklmnopqrstuvwxyz")
	t, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || digits == "" || digits[0] == '+' || digits[0] == '-' {
		return "", 0, false
	}
	return v[:i], t, true
}
