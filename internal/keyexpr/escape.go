package keyexpr

import (
	"strings"
	"unicode/utf8"
)

const upperHex = "0123456789ABCDEF"

// special[c] reports whether the ASCII byte c must be percent-encoded: the
// separators, the escape character, control characters, and the braces that
// would make a Redis Cluster hash tag ("POST /orders/{id}" would otherwise
// put every key of a route in the slot of "id").
var special = func() (t [utf8.RuneSelf]bool) {
	for c := range utf8.RuneSelf {
		t[c] = c < 0x20 || c == 0x7f || c == '%' || c == ':' || c == '#' || c == '{' || c == '}'
	}
	return t
}()

// plain[c] reports whether the byte c is written as is: ASCII and not
// special.
var plain = func() (t [256]bool) {
	for c := range utf8.RuneSelf {
		t[c] = !special[c]
	}
	return t
}()

// EscapedLen returns the length of Escape(s) without building it.
func EscapedLen(s string) int {
	n := len(s)
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if special[c] {
				n += 2
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			n += 2
		}
		i += size
	}
	return n
}

// writeEscaped appends the escaped form of s to b: runs that need no
// escaping are written whole. (hashWriter.writeEscaped is its twin for
// long keys, which go to a hash instead of a string.)
func writeEscaped(b *strings.Builder, s string) {
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if !special[c] {
				i++
				continue
			}
		} else if r, size := utf8.DecodeRuneInString(s[i:]); r != utf8.RuneError || size != 1 {
			i += size
			continue
		}
		b.WriteString(s[start:i])
		b.WriteByte('%')
		b.WriteByte(upperHex[c>>4])
		b.WriteByte(upperHex[c&0x0f])
		i++
		start = i
	}
	b.WriteString(s[start:])
}

// Escape returns s with '%', ':', '#', '{', '}', ASCII control characters and
// bytes that are not valid UTF-8 percent-encoded (upper-case hex). Escape is
// injective, and its result never contains ':', '#', braces or control
// characters.
func Escape(s string) string {
	n := EscapedLen(s)
	if n == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(n)
	writeEscaped(&b, s)
	return b.String()
}
