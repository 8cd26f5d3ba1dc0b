package redis

import "strings"

// Suffixes of the names derived from a lock key.
const (
	voidSuffix   = ":void"
	queueSuffix  = ":queue"
	sharesSuffix = ":shares"

	// A key with a hash tag keeps it in its derived names, which are the key
	// plus a suffix. There the suffixes start with "##" and a letter that is
	// not a hex digit, a shape the key builders never produce (they escape
	// '#' and ':' inside names and parts, and "##" only precedes the 64 hex
	// digits of a hashed key), so no built key is another key's queue,
	// shares or void marker: with ":queue", "{app}:order#1" of a one-part
	// route and "{app}:order#1:queue" of a two-part route would be a lock and
	// the other's queue.
	taggedVoidSuffix   = "##void"
	taggedQueueSuffix  = "##queue"
	taggedSharesSuffix = "##shares"
)

// queueKey returns the name of key's wait queue: a sorted set of the
// executors waiting for key, by arrival (see docs/redis.md).
func queueKey(key string) string { return derive(key, queueSuffix, taggedQueueSuffix) }

// sharesKey returns the name of key's shares: a sorted set of its read
// locks or permits, by expiry (see docs/redis.md).
func sharesKey(key string) string { return derive(key, sharesSuffix, taggedSharesSuffix) }

// voidPrefix returns the prefix of the void markers of key's owners: the
// marker of owner o is voidPrefix(key) + o ("{order:42}:void:<owner>",
// "{app}:order#42##void:<owner>").
func voidPrefix(key string) string { return derive(key, voidSuffix, taggedVoidSuffix) + ":" }

// voidKey returns the name of the marker that voids owner's acquisitions of
// key.
func voidKey(key, owner string) string { return voidPrefix(key) + owner }

// reservedKey reports whether key is the wait queue, the shares or a void
// marker of a key with a hash tag ("<key>##queue", "<key>##shares",
// "<key>##void:<owner>"): a name the executor writes for its own bookkeeping,
// which no key builder produces and which must not be locked.
func reservedKey(key string) bool {
	if _, ok := hashTag(key); !ok {
		return false
	}
	return strings.HasSuffix(key, taggedQueueSuffix) ||
		strings.HasSuffix(key, taggedSharesSuffix) || strings.Contains(key, taggedVoidSuffix+":")
}

// The scripts' KEYS for a lock key are the key itself and, in this order,
// its shares, its wait queue and the prefix of its owners' void markers.
const (
	nameShares = 1 + iota
	nameQueue
	nameVoids
	lockNameCount // the key and its three derived names
)

// appendLockName appends the i-th of key's names after the key itself
// (nameShares, nameQueue or nameVoids) to dst: a call's arguments are
// written into its own buffers on every acquisition and release, not
// allocated.
func appendLockName(dst []byte, key string, i int) []byte {
	switch i {
	case nameShares:
		return appendDerived(dst, key, sharesSuffix, taggedSharesSuffix)
	case nameQueue:
		return appendDerived(dst, key, queueSuffix, taggedQueueSuffix)
	}
	return append(appendDerived(dst, key, voidSuffix, taggedVoidSuffix), ':')
}

// lockNames returns key and its derived names, in the order of the
// scripts' KEYS, as strings: for the calls that go through go-redis's own
// EVAL (voids, a share's renewals).
func lockNames(key string) []string {
	var ends [lockNameCount]int
	buf := make([]byte, 0, 3*len(key)+64)
	for i := nameShares; i < lockNameCount; i++ {
		buf = appendLockName(buf, key, i)
		ends[i] = len(buf)
	}
	s := string(buf)
	return []string{key, s[:ends[nameShares]], s[ends[nameShares]:ends[nameQueue]], s[ends[nameQueue]:]}
}

// derive returns a name unique to key (per suffix) that Redis Cluster hashes
// to the same slot as key itself, so that one script can touch both:
//
//   - key has a hash tag (a non-empty "{...}" after its first "{"): key plus
//     tagged, which keeps that tag ("a:{42}" gives "a:{42}##queue");
//   - key has none and contains no "}": "{key}" plus suffix, whose tag is the
//     whole key ("order:42" gives "{order:42}:queue");
//   - otherwise (no tag, but a "}" as in "a}b" or "{}x", or the empty key,
//     which "{}" would not tag): no tag can hold
//     the whole key, so a short tag of the key's slot is used instead, and the
//     key follows the suffix to keep the name unique ("{<tag>}:queue:a}b").
func derive(key, suffix, tagged string) string {
	return string(appendDerived(make([]byte, 0, len(key)+len(tagged)+8), key, suffix, tagged))
}

// appendDerived appends derive(key, suffix, tagged) to dst.
func appendDerived(dst []byte, key, suffix, tagged string) []byte {
	if _, ok := hashTag(key); ok {
		return append(append(dst, key...), tagged...)
	}
	if key != "" && !strings.Contains(key, "}") {
		dst = append(append(append(dst, '{'), key...), '}')
		return append(dst, suffix...)
	}
	tag := slotTag(keySlot(key))
	dst = append(append(append(dst, '{'), tag[:]...), '}')
	return append(append(append(dst, suffix...), ':'), key...)
}

// hashTag returns the part of key that Redis Cluster hashes when key has a
// hash tag: the bytes between the first "{" and the first "}" after it, if
// there are any.
func hashTag(key string) (string, bool) {
	s := strings.IndexByte(key, '{')
	if s < 0 {
		return "", false
	}
	e := strings.IndexByte(key[s+1:], '}')
	if e <= 0 {
		return "", false
	}
	return key[s+1 : s+1+e], true
}
