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

// lockNames returns queueKey(key), sharesKey(key) and voidPrefix(key): the
// names an acquisition and its release touch besides key. Except for keys
// that need a slot tag, they share one allocation, since they are made on
// every acquisition's path.
func lockNames(key string) (queue, shares, voids string) {
	if _, ok := hashTag(key); ok {
		s := key + taggedQueueSuffix + key + taggedSharesSuffix + key + taggedVoidSuffix + ":"
		q := len(key) + len(taggedQueueSuffix)
		sh := q + len(key) + len(taggedSharesSuffix)
		return s[:q], s[q:sh], s[sh:]
	}
	if key != "" && !strings.Contains(key, "}") {
		pre := len(key) + 2
		s := "{" + key + "}" + queueSuffix + "{" + key + "}" + sharesSuffix + "{" + key + "}" + voidSuffix + ":"
		q := pre + len(queueSuffix)
		sh := q + pre + len(sharesSuffix)
		return s[:q], s[q:sh], s[sh:]
	}
	return queueKey(key), sharesKey(key), voidPrefix(key)
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
	if _, ok := hashTag(key); ok {
		return key + tagged
	}
	if key != "" && !strings.Contains(key, "}") {
		return "{" + key + "}" + suffix
	}
	tag := slotTag(keySlot(key))
	return "{" + string(tag[:]) + "}" + suffix + ":" + key
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
