package zookeeper

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode/utf8"
)

const (
	// maxNameLen caps the length in bytes of an escaped key's znode name.
	maxNameLen = 200
	// hashMark separates a long name's prefix from the hash of its key. It
	// never occurs in a plain escaped name, where '%' is always followed by
	// two hex digits.
	hashMark = "%~"
	// hashedPrefixLen is how much of a long escaped name is kept before
	// hashMark and the 64 hex digits of the SHA-256 of the key.
	hashedPrefixLen = maxNameLen - len(hashMark) - 2*sha256.Size
)

// escapeKey maps a lock key to the name of its znode under the base path.
// The mapping is injective: every byte that ZooKeeper rejects in a path
// component, or that would change its meaning ('/', and '%' itself), is
// percent-encoded as %XX; the names "." and ".." become "%2E" and "%2E%2E";
// so a name up to maxNameLen bytes decodes back to exactly one key. Longer
// names keep a prefix and end with hashMark and the SHA-256 of the whole key.
func escapeKey(key string) string {
	var b strings.Builder
	b.Grow(len(key))
	cut := 0 // the longest prefix of b, at an escape boundary, that fits hashedPrefixLen
	for i := 0; i < len(key); {
		r, size := utf8.DecodeRuneInString(key[i:])
		if keepRune(r, size) {
			b.WriteString(key[i : i+size])
		} else {
			for _, c := range []byte(key[i : i+size]) {
				b.WriteByte('%')
				b.WriteString(hexByte(c))
			}
		}
		i += size
		if b.Len() <= hashedPrefixLen {
			cut = b.Len()
		}
	}
	name := b.String()
	switch {
	case len(name) > maxNameLen:
		sum := sha256.Sum256([]byte(key))
		return name[:cut] + hashMark + hex.EncodeToString(sum[:])
	case name == ".":
		return "%2E"
	case name == "..":
		return "%2E%2E"
	}
	return name
}

// keepRune reports whether the rune r, encoded in size bytes, may appear
// as is in a znode name. It follows ZooKeeper's PathUtils.validatePath,
// which checks UTF-16 code units: control characters, U+007F to U+009F,
// surrogates and the private use area up to U+F8FF, U+FFF0 to U+FFFF and
// every character outside the BMP (a surrogate pair in UTF-16) are
// rejected, as are bytes that are not UTF-8.
func keepRune(r rune, size int) bool {
	switch {
	case r == utf8.RuneError && size < 3:
		return false // not UTF-8
	case r == '/', r == '%':
		return false
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return false
	case r >= 0xd800 && r <= 0xf8ff, r >= 0xfff0:
		return false
	}
	return true
}

// hexByte returns c as two upper-case hex digits.
func hexByte(c byte) string {
	const digits = "0123456789ABCDEF"
	return string([]byte{digits[c>>4], digits[c&0x0f]})
}

// LockPath returns the lock parent of key: the znode, [Options.BasePath] +
// "/" + the escaped key, under which key's lock nodes queue (the child with
// the lowest sequence number holds the lock). It does not touch ZooKeeper.
// Operators and tests use it to inspect or delete a lock node by hand, as
// with zkCli: deleting the holder's node makes its lease lost and grants the
// lock to the next in the queue.
func (e *Executor) LockPath(key string) string { return e.keyPath(key) }
