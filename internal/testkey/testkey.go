// Package testkey makes the lock keys and owner values of the executors'
// tests: a key unique to one run of one test, so that runs sharing a
// server never meet, and fresh crypto-random owners.
package testkey

import (
	"crypto/rand"
	"encoding/hex"
	"testing"
)

// Unique returns prefix, the test's name and 12 random hexadecimal digits:
// a key no other test or run uses.
func Unique(t testing.TB, prefix string) string {
	var b [6]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return prefix + t.Name() + ":" + hex.EncodeToString(b[:])
}

// Owner returns a fresh owner value: 32 hexadecimal digits.
func Owner() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
