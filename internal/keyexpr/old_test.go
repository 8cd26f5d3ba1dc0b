package keyexpr

// The implementation of escaping, joining and hashing before the part cap
// and the streaming hash, kept to prove that keys did not change.

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/lock4go/lock4go/executor"
)

// oldSpecial is the old special(c).
func oldSpecial(c byte) bool {
	return c < 0x20 || c == 0x7f || c == '%' || c == ':' || c == '#' || c == '{' || c == '}'
}

const oldHashedLen = hashedLen

// oldEscapedLen returns the length of oldEscape(s) without building it.
func oldEscapedLen(s string) int {
	n := len(s)
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if oldSpecial(c) {
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

// oldWriteEscaped appends the escaped form of s to b.
func oldWriteEscaped(b *strings.Builder, s string) {
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		size := 1
		esc := false
		if c < utf8.RuneSelf {
			esc = oldSpecial(c)
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
func oldEscape(s string) string {
	if oldEscapedLen(s) == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(oldEscapedLen(s))
	oldWriteEscaped(&b, s)
	return b.String()
}

// join builds the key; parts are known to be non-empty.
func oldJoin(prefix, name string, parts []string, maxLen int) (string, error) {
	n := oldEscapedLen(name)
	if prefix != "" {
		n += len(prefix) + 1
	}
	if len(parts) > 0 {
		n += len(parts) // '#' and the ':' separators
		for _, p := range parts {
			n += oldEscapedLen(p)
		}
	}
	var b strings.Builder
	b.Grow(n)
	if prefix != "" {
		b.WriteString(prefix)
		b.WriteByte(':')
	}
	oldWriteEscaped(&b, name)
	for i, p := range parts {
		if i == 0 {
			b.WriteByte('#')
		} else {
			b.WriteByte(':')
		}
		oldWriteEscaped(&b, p)
	}
	key := b.String()
	if len(key) <= maxLen {
		return key, nil
	}
	return oldHashKey(prefix, name, key, maxLen)
}

// oldHashKey returns <prefix>:<name>##<sha256 hex of key>.
func oldHashKey(prefix, name, key string, maxLen int) (string, error) {
	if oldFixedLen(prefix, name)+oldHashedLen > maxLen {
		return "", fmt.Errorf("keybuilder: prefix and name %q are too long for keys of at most %d bytes: %w",
			name, maxLen, executor.ErrInvalidConfig)
	}
	sum := sha256.Sum256([]byte(key))
	var b strings.Builder
	b.Grow(oldFixedLen(prefix, name) + oldHashedLen)
	if prefix != "" {
		b.WriteString(prefix)
		b.WriteByte(':')
	}
	oldWriteEscaped(&b, name)
	b.WriteString("##")
	var h [2 * sha256.Size]byte
	hex.Encode(h[:], sum[:])
	b.Write(h[:])
	return b.String(), nil
}

// oldFixedLen is the length of "<prefix>:<escaped name>".
func oldFixedLen(prefix, name string) int {
	n := oldEscapedLen(name)
	if prefix != "" {
		n += len(prefix) + 1
	}
	return n
}
