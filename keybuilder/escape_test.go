package keybuilder

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/lock4go/lock4go/executor"
)

func TestEscape(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"42", "42"},
		{"a:b", "a%3Ab"},
		{"a#b", "a%23b"},
		{"100%", "100%25"},
		{"%3A", "%253A"},
		{"nul\x00", "nul%00"},
		{"tab\tdel\x7f", "tab%09del%7F"},
		{"héllo 世界", "héllo 世界"},
		{"bad\xffutf8", "bad%FFutf8"},
		{"POST /orders/{id}", "POST /orders/%7Bid%7D"},
		{"{", "%7B"},
		{"%7B", "%257B"},
	}
	for _, tt := range tests {
		if got := Escape(tt.in); got != tt.want {
			t.Errorf("Escape(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if got := escapedLen(tt.in); got != len(tt.want) {
			t.Errorf("escapedLen(%q) = %d, want %d", tt.in, got, len(tt.want))
		}
	}
}

func TestJoin(t *testing.T) {
	tests := []struct {
		prefix, name string
		parts        []string
		want         string
	}{
		{"lock4go", "order", nil, "lock4go:order"},
		{"lock4go", "order", []string{"42"}, "lock4go:order#42"},
		{"lock4go", "order", []string{"42", "eu"}, "lock4go:order#42:eu"},
		{"lock4go", "order", []string{"4:2"}, "lock4go:order#4%3A2"},
		{"lock4go", "a#b", nil, "lock4go:a%23b"},
		{"app:prod", "POST /orders/{id}", []string{"7"}, "app:prod:POST /orders/%7Bid%7D#7"},
		{"lock4go", "order", []string{"{42}"}, "lock4go:order#%7B42%7D"},
		{"{app}", "order", []string{"1"}, "{app}:order#1"},
		{"", "order", []string{"1"}, "order#1"},
	}
	for _, tt := range tests {
		got, err := Join(tt.prefix, tt.name, tt.parts...)
		if err != nil || got != tt.want {
			t.Errorf("Join(%q, %q, %q) = %q, %v; want %q", tt.prefix, tt.name, tt.parts, got, err, tt.want)
		}
	}
	if _, err := Join("p", "n", "a", ""); !errors.Is(err, executor.ErrInvalidKey) {
		t.Errorf("Join with an empty part: err = %v, want ErrInvalidKey", err)
	}
}

func TestJoin_long(t *testing.T) {
	long := strings.Repeat("x", 600)
	k1, err := join("lock4go", "order", []string{long})
	if err != nil {
		t.Fatal(err)
	}
	k2, err := join("lock4go", "order", []string{long + "y"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(k1, "lock4go:order##") || len(k1) != len("lock4go:order##")+64 {
		t.Errorf("hashed key = %q", k1)
	}
	if k1 == k2 {
		t.Errorf("two long keys hash alike: %q", k1)
	}
	// A key just at the limit is kept as is.
	part := strings.Repeat("x", DefaultMaxKeyLen-len("lock4go:order#"))
	k, err := join("lock4go", "order", []string{part})
	if err != nil || k != "lock4go:order#"+part {
		t.Errorf("key at the limit changed: %d bytes, %v", len(k), err)
	}
	// A name too long for any hashed key is a configuration error.
	if _, err := join("lock4go", strings.Repeat("n", 1000), []string{long}); !errors.Is(err, executor.ErrInvalidConfig) {
		t.Errorf("err = %v, want ErrInvalidConfig", err)
	}
}

// unjoin inverts join for unhashed keys with a known prefix.
func unjoin(t *testing.T, prefix, key string) (name string, parts []string) {
	t.Helper()
	rest := strings.TrimPrefix(key, prefix+":")
	name, ps, has := strings.Cut(rest, "#")
	name = unescape(t, name)
	if has {
		for _, p := range strings.Split(ps, ":") {
			parts = append(parts, unescape(t, p))
		}
	}
	return name, parts
}

func unescape(t *testing.T, s string) string {
	t.Helper()
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) {
			t.Fatalf("truncated escape in %q", s)
		}
		var c byte
		for _, h := range []byte(s[i+1 : i+3]) {
			c <<= 4
			switch {
			case '0' <= h && h <= '9':
				c |= h - '0'
			case 'A' <= h && h <= 'F':
				c |= h - 'A' + 10
			default:
				t.Fatalf("bad escape in %q", s)
			}
		}
		b.WriteByte(c)
		i += 2
	}
	return b.String()
}

// FuzzHTTPKeyInjective checks that distinct (name, parts) tuples never build
// the same key, that keys round-trip, and that keys are valid UTF-8 without
// NUL or braces (a Redis Cluster hash tag).
func FuzzHTTPKeyInjective(f *testing.F) {
	f.Add("order", "a:b", "c", "order", "a", "b:c")
	f.Add("n", "h", strings.Repeat("0", 64), "n", strings.Repeat("z", 600), "x")
	f.Add("a#b", "c", "", "a", "b#c", "")
	f.Add("n", "%3A", "x", "n", ":", "x")
	f.Add("n", "\xff", "\x00", "n", "%FF", "%00")
	f.Add("POST /o/{id}", "{a}", "}", "POST /o/%7Bid%7D", "%7Ba%7D", "%7D")
	f.Fuzz(func(t *testing.T, n1, a1, b1, n2, a2, b2 string) {
		t1 := tuple(n1, a1, b1)
		t2 := tuple(n2, a2, b2)
		k1, err1 := join("lock4go", t1[0], t1[1:])
		k2, err2 := join("lock4go", t2[0], t2[1:])
		if err1 != nil || err2 != nil {
			return // name too long for a hashed key: a configuration error, not a key
		}
		for _, k := range []string{k1, k2} {
			if !utf8.ValidString(k) || strings.ContainsRune(k, 0) || strings.ContainsAny(k, "{}") || len(k) > maxKeyLen {
				t.Fatalf("bad key %q", k)
			}
		}
		for _, k := range []string{k1, k2} {
			if !derivedFree(k) {
				t.Fatalf("key %q has a shape the Redis executor keeps for its own names", k)
			}
		}
		if equal(t1, t2) != (k1 == k2) {
			t.Fatalf("tuples %q and %q build keys %q and %q", t1, t2, k1, k2)
		}
		if !strings.Contains(k1, "##") {
			name, parts := unjoin(t, "lock4go", k1)
			if !equal(append([]string{name}, parts...), t1) {
				t.Fatalf("key %q does not round-trip to %q", k1, t1)
			}
		}
	})
}

// derivedFree reports whether key has the shape the Redis executor relies on
// to keep its own names apart (executors/redis/names.go): "##" only before
// the 64 hex digits that end a hashed key, so no key ends with "##token" or
// contains "##void:".
func derivedFree(key string) bool {
	i := strings.Index(key, "##")
	if i < 0 {
		return true
	}
	h := key[i+2:]
	if len(h) != 64 {
		return false
	}
	for j := 0; j < len(h); j++ {
		if !('0' <= h[j] && h[j] <= '9' || 'a' <= h[j] && h[j] <= 'f') {
			return false
		}
	}
	return true
}

// tuple builds (name, parts...) dropping empty parts, as builders reject them.
func tuple(name string, parts ...string) []string {
	t := []string{name}
	for _, p := range parts {
		if p != "" {
			t = append(t, p)
		}
	}
	return t
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestJoin_taggedPrefix covers the keys of the two routes under the
// prefix "{app}": one builds "{app}:order#1", the other "{app}:order#1:token"
// for the item "token"; the Redis executor therefore names the first one's
// counter "{app}:order#1##token", a key no builder builds.
func TestJoin_taggedPrefix(t *testing.T) {
	one, err := Join("{app}", "order", "1")
	if err != nil {
		t.Fatal(err)
	}
	two, err := Join("{app}", "order", "1", "token")
	if err != nil {
		t.Fatal(err)
	}
	if one != "{app}:order#1" || two != one+":token" {
		t.Fatalf("keys %q and %q", one, two)
	}
	for _, parts := range [][]string{{"1##token"}, {"1", "#token"}, {"1#", "token"}, {"1##void:x"}, {"{"}, {strings.Repeat("#", 600)}} {
		k, err := Join("{app}", "order#1", parts...)
		if err != nil || !derivedFree(k) || strings.HasSuffix(k, "##token") || strings.Contains(k, "##void:") {
			t.Errorf("Join(%q) = %q, %v", parts, k, err)
		}
	}
}
