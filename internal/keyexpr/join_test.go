package keyexpr

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/lock4go/lock4go/executor"
)

// randomPart returns a string of n bytes drawn from separators, escape
// characters, controls, multi-byte runes, invalid UTF-8 and plain letters.
// A long part repeats a random chunk, which still puts escapes and runes
// across the boundaries of the hash's buffer.
func randomPart(r *rand.Rand, n int) string {
	alphabet := []string{"a", "Z", "0", ":", "#", "%", "{", "}", "\x00", "\x7f", "\n", "é", "世", "\xff", "\xe4\xb8", "-", "/", " "}
	if n > 3000 {
		chunk := randomPart(r, 1000+r.IntN(2000))
		return strings.Repeat(chunk, n/len(chunk)+1)[:n]
	}
	var b strings.Builder
	for b.Len() < n {
		if r.IntN(4) == 0 {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		} else {
			b.WriteByte(byte('a' + r.IntN(26)))
		}
	}
	return b.String()
}

// TestJoin_sameAsBefore builds random keys, short and long (hashed), with
// Join and with the implementation before the streaming hash: every key
// must be the same, since other processes compute the same keys.
func TestJoin_sameAsBefore(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	sizes := []int{0, 1, 5, 40, 300, 600, 1100, 5000, 20000}
	for i := range 1500 {
		prefix := []string{"", "lock4go", "{app}", "a:b"}[r.IntN(4)]
		name := randomPart(r, 1+r.IntN(40))
		parts := make([]string, r.IntN(4))
		for j := range parts {
			parts[j] = randomPart(r, 1+sizes[r.IntN(len(sizes))]+r.IntN(10))
		}
		got, err := Join(prefix, name, parts)
		want, werr := oldJoin(prefix, name, parts, HashLen)
		if got != want || (err == nil) != (werr == nil) {
			t.Fatalf("case %d: Join = %q, %v; before: %q, %v", i, got, err, want, werr)
		}
		if esc := Escape(name); esc != oldEscape(name) || EscapedLen(name) != oldEscapedLen(name) {
			t.Fatalf("case %d: Escape(%q) = %q, before %q", i, name, esc, oldEscape(name))
		}
	}
}

// FuzzJoin_sameAsBefore is TestJoin_sameAsBefore over fuzzed inputs.
func FuzzJoin_sameAsBefore(f *testing.F) {
	f.Add("lock4go", "POST /orders/{id}", "42", "a:b#c", 512)
	f.Add("", "n", strings.Repeat("%", 400), "\xff", 100)
	f.Fuzz(func(t *testing.T, prefix, name, p1, p2 string, _ int) {
		if p1 == "" || p2 == "" {
			return
		}
		parts := []string{p1, p2}
		got, err := Join(prefix, name, parts)
		want, werr := oldJoin(prefix, name, parts, HashLen)
		if werr != nil && err == nil && CheckName(prefix, name, MaxLen) == nil {
			return // a name too long for hashed keys of HashLen bytes, not of MaxLen
		}
		if got != want || (err == nil) != (werr == nil) {
			t.Fatalf("Join = %q, %v; before: %q, %v", got, err, want, werr)
		}
	})
}

func TestJoin_nameTooLong(t *testing.T) {
	if _, err := Join("lock4go", strings.Repeat("n", 1000), []string{strings.Repeat("x", 600)}); !errors.Is(err, executor.ErrInvalidConfig) {
		t.Fatalf("Join with no room for the hash = %v, want ErrInvalidConfig", err)
	}
}

// TestJoin_longPartAllocs checks that a long part is escaped into the
// hash, not copied whole: building the key of a 4 MiB part allocates a
// small, fixed amount.
func TestJoin_longPartAllocs(t *testing.T) {
	part := strings.Repeat("a:", 2<<20)
	allocs := testing.AllocsPerRun(5, func() {
		if _, err := Join("lock4go", "n", []string{part}); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 8 {
		t.Fatalf("%v allocations per key of a 4 MiB part", allocs)
	}
}
