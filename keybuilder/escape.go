package keybuilder

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/lock4go/lock4go/executor"
)

const upperHex = "0123456789ABCDEF"

// hashedLen is the length of "##" plus a hex SHA-256.
const hashedLen = 2 + 2*sha256.Size

// special reports whether the ASCII byte c must be percent-encoded: the
// separators, the escape character, control characters, and the braces that
// would make a Redis Cluster hash tag ("POST /orders/{id}" would otherwise
// put every key of a route in the slot of "id").
func special(c byte) bool {
	return c < 0x20 || c == 0x7f || c == '%' || c == ':' || c == '#' || c == '{' || c == '}'
}

// escapedLen returns the length of Escape(s) without building it.
func escapedLen(s string) int {
	n := len(s)
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if special(c) {
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

// writeEscaped appends the escaped form of s to b.
func writeEscaped(b *strings.Builder, s string) {
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		size := 1
		esc := false
		if c < utf8.RuneSelf {
			esc = special(c)
		} else {
			var r rune
			r, size = utf8.DecodeRuneInString(s[i:])
			esc = r == utf8.RuneError && size == 1
		}
		if esc {
			b.WriteString(s[start:i])
			b.WriteByte('%')
			b.WriteByte(upperHex[c>>4])
			b.WriteByte(upperHex[c&0x0f])
			start = i + 1
		}
		i += size
	}
	b.WriteString(s[start:])
}

// Escape returns s with '%', ':', '#', '{', '}', ASCII control characters and
// bytes that are not valid UTF-8 percent-encoded (upper-case hex). Escape is
// injective, and its result never contains ':', '#', braces or control
// characters.
func Escape(s string) string {
	if escapedLen(s) == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(escapedLen(s))
	writeEscaped(&b, s)
	return b.String()
}

// Join builds a key of Lock4j's shape, <prefix>:<name>#<part1>:<part2>…, from
// a name and parts, escaping the name and every part, and hashing keys longer
// than [DefaultMaxKeyLen] as the builders do. An empty part is an error
// wrapping [executor.ErrInvalidKey]. Use it to lock by hand
// (tpl.Lock(ctx, key)) a key that middleware builds, or the other way round.
func Join(prefix, name string, parts ...string) (string, error) {
	for i, p := range parts {
		if p == "" {
			return "", fmt.Errorf("keybuilder: part %d is empty: %w", i, executor.ErrInvalidKey)
		}
	}
	return join(prefix, name, parts, DefaultMaxKeyLen)
}

// join builds the key; parts are known to be non-empty.
func join(prefix, name string, parts []string, maxLen int) (string, error) {
	n := escapedLen(name)
	if prefix != "" {
		n += len(prefix) + 1
	}
	if len(parts) > 0 {
		n += len(parts) // '#' and the ':' separators
		for _, p := range parts {
			n += escapedLen(p)
		}
	}
	var b strings.Builder
	b.Grow(n)
	if prefix != "" {
		b.WriteString(prefix)
		b.WriteByte(':')
	}
	writeEscaped(&b, name)
	for i, p := range parts {
		if i == 0 {
			b.WriteByte('#')
		} else {
			b.WriteByte(':')
		}
		writeEscaped(&b, p)
	}
	key := b.String()
	if len(key) <= maxLen {
		return key, nil
	}
	return hashKey(prefix, name, key, maxLen)
}

// hashKey returns <prefix>:<name>##<sha256 hex of key>.
func hashKey(prefix, name, key string, maxLen int) (string, error) {
	if fixedLen(prefix, name)+hashedLen > maxLen {
		return "", fmt.Errorf("keybuilder: prefix and name %q are too long for keys of at most %d bytes: %w",
			name, maxLen, executor.ErrInvalidConfig)
	}
	sum := sha256.Sum256([]byte(key))
	var b strings.Builder
	b.Grow(fixedLen(prefix, name) + hashedLen)
	if prefix != "" {
		b.WriteString(prefix)
		b.WriteByte(':')
	}
	writeEscaped(&b, name)
	b.WriteString("##")
	var h [2 * sha256.Size]byte
	hex.Encode(h[:], sum[:])
	b.Write(h[:])
	return b.String(), nil
}

// fixedLen is the length of "<prefix>:<escaped name>".
func fixedLen(prefix, name string) int {
	n := escapedLen(name)
	if prefix != "" {
		n += len(prefix) + 1
	}
	return n
}

// checkName reports whether a fixed name leaves room for a hashed key.
func checkName(prefix, name string, maxLen int) error {
	if fixedLen(prefix, name)+hashedLen > maxLen {
		return fmt.Errorf("keybuilder: prefix %q and name %q are too long for keys of at most %d bytes: %w",
			prefix, name, maxLen, executor.ErrInvalidConfig)
	}
	return nil
}
