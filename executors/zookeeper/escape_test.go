package zookeeper

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// unescape decodes a name escapeKey produced without hashing.
func unescape(name string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		if name[i] != '%' {
			b.WriteByte(name[i])
			continue
		}
		if i+2 >= len(name) {
			return "", false
		}
		n, err := strconv.ParseUint(name[i+1:i+3], 16, 8)
		if err != nil {
			return "", false
		}
		b.WriteByte(byte(n))
		i += 2
	}
	return b.String(), true
}

// validName applies ZooKeeper's PathUtils.validatePath rules to one path
// component, on UTF-16 code units as the server does.
func validName(name string) bool {
	if name == "" || name == "." || name == ".." || strings.Contains(name, "/") || !utf8.ValidString(name) {
		return false
	}
	for _, r := range name {
		if r > 0xffff {
			return false // a surrogate pair in UTF-16
		}
		switch {
		case r == 0, r < 0x20, r >= 0x7f && r <= 0x9f, r >= 0xd800 && r <= 0xf8ff, r >= 0xfff0:
			return false
		}
	}
	return true
}

func TestEscapeKey(t *testing.T) {
	long := strings.Repeat("a", 300)
	tests := []struct {
		key, want string
	}{
		{"orders:42", "orders:42"},
		{"a/b", "a%2Fb"},
		{"100%", "100%25"},
		{".", "%2E"},
		{"..", "%2E%2E"},
		{"...", "..."},
		{"./", ".%2F"},
		{"tab\there", "tab%09here"},
		{"nul\x00", "nul%00"},
		{"del\x7f", "del%7F"},
		{"c1\u0085", "c1%C2%85"},
		{"private\uf000", "private%EF%80%80"},
		{"emoji😀", "emoji%F0%9F%98%80"},
		{"bad\xff", "bad%FF"},
		{"héllo wörld", "héllo wörld"},
		{"lock4j:com.example.Svc#get", "lock4j:com.example.Svc#get"},
	}
	for _, tc := range tests {
		t.Run(tc.key, func(t *testing.T) {
			if got := escapeKey(tc.key); got != tc.want {
				t.Fatalf("escapeKey(%q) = %q, want %q", tc.key, got, tc.want)
			}
		})
	}
	t.Run("long", func(t *testing.T) {
		a, b := escapeKey(long), escapeKey(long+"b")
		if len(a) > maxNameLen || len(b) > maxNameLen {
			t.Fatalf("lengths %d, %d, want <= %d", len(a), len(b), maxNameLen)
		}
		if a == b || !strings.Contains(a, hashMark) {
			t.Fatalf("long keys map to %q and %q", a, b)
		}
	})
	t.Run("long escapes are not split", func(t *testing.T) {
		name := escapeKey(strings.Repeat("/", 100))
		prefix, _, _ := strings.Cut(name, hashMark)
		if _, ok := unescape(prefix); !ok || len(prefix)%3 != 0 {
			t.Fatalf("prefix %q splits an escape", prefix)
		}
	})
}

func FuzzEscape(f *testing.F) {
	for _, s := range []string{"", ".", "..", "%2E", "a/b", "a%2Fb", "\xff", "😀", strings.Repeat("x", 250), strings.Repeat("/", 70)} {
		f.Add(s, s+".")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		ea, eb := escapeKey(a), escapeKey(b)
		for _, tc := range []struct{ key, name string }{{a, ea}, {b, eb}} {
			if tc.key == "" {
				continue // rejected before escaping
			}
			if !validName(tc.name) || len(tc.name) > maxNameLen {
				t.Fatalf("escapeKey(%q) = %q: not a valid znode name", tc.key, tc.name)
			}
			if !strings.Contains(tc.name, hashMark) {
				if got, ok := unescape(tc.name); !ok || got != tc.key {
					t.Fatalf("escapeKey(%q) = %q decodes to %q", tc.key, tc.name, got)
				}
			}
		}
		if a != b && ea == eb {
			t.Fatalf("keys %q and %q share the name %q", a, b, ea)
		}
	})
}
