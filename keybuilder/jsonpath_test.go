package keybuilder

import (
	"math"
	"strconv"
	"testing"
)

// FuzzCanonicalNumber checks that the canonical form of a number is a fixed
// point (one spelling per value) with the same float64 value as the input.
func FuzzCanonicalNumber(f *testing.F) {
	for _, s := range []string{"0", "-0", "42", "4.2e1", "1e20", "100000000000000000000", "0.1", "9007199254740993", "-1.5E-7", "1e308"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fl, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsInf(fl, 0) || math.IsNaN(fl) {
			return
		}
		c, err := canonicalNumber(s)
		if err != nil {
			return // too long to key exactly
		}
		again, err := canonicalNumber(c)
		if err != nil || again != c {
			t.Fatalf("canonicalNumber(%q) = %q, but canonicalNumber(%q) = %q, %v", s, c, c, again, err)
		}
		if cf, err := strconv.ParseFloat(c, 64); err != nil || cf != fl && !(cf == 0 && fl == 0) {
			t.Fatalf("canonicalNumber(%q) = %q: float64 %v, want %v", s, c, cf, fl)
		}
	})
}
