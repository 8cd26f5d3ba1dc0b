package keyexpr

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"strings"
	"unicode/utf8"

	"github.com/lock4go/lock4go/executor"
)

// hashedLen is the length of "##" plus a hex SHA-256.
const hashedLen = 2 + 2*sha256.Size

const (
	// HashLen is the length above which a key is hashed: the same for
	// every builder, whatever its length limit, so that one prefix, name
	// and parts give one key whoever builds it.
	HashLen = 512
	// MaxLen is the Template's own key length limit (lock4go.MaxKeyLen),
	// which no key may exceed.
	MaxLen = 1024
)

// Join builds <prefix>:<name>#<part1>:<part2>… (or <prefix>:<name> without
// parts; no "<prefix>:" for an empty prefix), escaping the name and every
// part with [Escape]. A key longer than [HashLen] is replaced by
// <prefix>:<escaped name>##<hex SHA-256 of the full key>, computed by
// escaping straight into the hash: a long part is never copied whole. A
// prefix and name too long for a hashed key of [MaxLen] bytes are an
// error wrapping executor.ErrInvalidConfig. Parts must be non-empty; their
// length is the caller's to cap.
func Join(prefix, name string, parts []string) (string, error) {
	// Escaping only lengthens: a key whose raw length is over the limit is
	// hashed without measuring its escaped length.
	n := FixedLen(prefix, name)
	raw := n
	for _, p := range parts {
		raw += 1 + len(p)
	}
	if raw <= HashLen {
		for _, p := range parts {
			n += 1 + EscapedLen(p)
		}
		if n <= HashLen {
			var b strings.Builder
			b.Grow(n)
			writeKey(&b, prefix, name, parts)
			return b.String(), nil
		}
	}
	return hashed(prefix, name, parts)
}

// writeKey writes the full key to w.
func writeKey(w *strings.Builder, prefix, name string, parts []string) {
	if prefix != "" {
		w.WriteString(prefix)
		w.WriteByte(':')
	}
	writeEscaped(w, name)
	for i, p := range parts {
		if i == 0 {
			w.WriteByte('#')
		} else {
			w.WriteByte(':')
		}
		writeEscaped(w, p)
	}
}

// hashed returns <prefix>:<escaped name>##<sha256 hex of the full key>.
func hashed(prefix, name string, parts []string) (string, error) {
	if err := CheckName(prefix, name, MaxLen); err != nil {
		return "", err
	}
	hw := hashWriter{h: sha256.New()}
	hw.writeKey(prefix, name, parts)
	var sum [sha256.Size]byte
	hw.flush()
	hw.h.Sum(sum[:0])
	var b strings.Builder
	b.Grow(FixedLen(prefix, name) + hashedLen)
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

// hashWriter feeds a hash through a buffer, so that escaping a long part
// writes it in large blocks and copies it no more than once.
type hashWriter struct {
	h   hash.Hash
	n   int
	buf [2 << 10]byte
}

func (w *hashWriter) WriteString(s string) (int, error) {
	n := len(s)
	for len(s) > 0 {
		if w.n == len(w.buf) {
			w.flush()
		}
		c := copy(w.buf[w.n:], s)
		w.n += c
		s = s[c:]
	}
	return n, nil
}

func (w *hashWriter) WriteByte(c byte) error {
	if w.n == len(w.buf) {
		w.flush()
	}
	w.buf[w.n] = c
	w.n++
	return nil
}

// writeKey writes the full key, as the function writeKey does, escaping
// in place.
func (w *hashWriter) writeKey(prefix, name string, parts []string) {
	if prefix != "" {
		w.WriteString(prefix)
		w.WriteByte(':')
	}
	w.writeEscaped(name)
	for i, p := range parts {
		if i == 0 {
			w.WriteByte('#')
		} else {
			w.WriteByte(':')
		}
		w.writeEscaped(p)
	}
}

// writeEscaped writes the escaped form of s (see writeEscaped) into the
// buffer: runs that need no escaping are copied whole, escapes are
// written in place, in one loop over s.
func (w *hashWriter) writeEscaped(s string) {
	buf, n := w.buf[:], w.n
	for i := 0; i < len(s); {
		if n > len(buf)-utf8.UTFMax {
			w.n = n
			w.flush()
			n = 0
		}
		c := s[i]
		switch {
		case plain[c]:
			j, end := i+1, min(len(s), i+len(buf)-n)
			for j < end && plain[s[j]] {
				j++
			}
			n += copy(buf[n:], s[i:j])
			i = j
			continue
		case c >= utf8.RuneSelf:
			if r, size := utf8.DecodeRuneInString(s[i:]); r != utf8.RuneError || size != 1 {
				n += copy(buf[n:], s[i:i+size])
				i += size
				continue
			}
		}
		buf[n], buf[n+1], buf[n+2] = '%', upperHex[c>>4], upperHex[c&0x0f]
		n += 3
		i++
	}
	w.n = n
}

func (w *hashWriter) flush() {
	w.h.Write(w.buf[:w.n])
	w.n = 0
}

// FixedLen is the length of "<prefix>:<escaped name>".
func FixedLen(prefix, name string) int {
	n := EscapedLen(name)
	if prefix != "" {
		n += len(prefix) + 1
	}
	return n
}

// CheckName reports, as an error wrapping executor.ErrInvalidConfig,
// whether a prefix and name leave no room for a hashed key of at most
// maxKeyLen bytes.
func CheckName(prefix, name string, maxKeyLen int) error {
	if FixedLen(prefix, name)+hashedLen > maxKeyLen {
		return fmt.Errorf("prefix %q and name %q are too long for keys of at most %d bytes: %w",
			prefix, name, maxKeyLen, executor.ErrInvalidConfig)
	}
	return nil
}
