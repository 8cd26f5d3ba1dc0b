package redis

import "strings"

// Suffixes of the names derived from a lock key.
const (
	counterSuffix = ":token"
	channelSuffix = ":released"
	voidSuffix    = ":void"
)

// counterKey returns the name of key's fencing counter.
func counterKey(key string) string { return derive(key, counterSuffix) }

// channelName returns the name of the channel that announces key's releases.
func channelName(key string) string { return derive(key, channelSuffix) }

// voidKey returns the name of the marker that voids owner's acquisitions of
// key: key's derived name with the void suffix, then ":" and the owner
// ("{order:42}:void:<owner>").
func voidKey(key, owner string) string { return derive(key, voidSuffix) + ":" + owner }

// acquireNames returns voidKey(key, owner), counterKey(key) and
// channelName(key): the names an acquisition and its release touch besides
// key. Except for keys that need a slot tag, the three share one allocation,
// since they are made on every acquisition's path.
func acquireNames(key, owner string) (void, counter, channel string) {
	var s string
	pre := len(key) // the length of what precedes each suffix
	if _, ok := hashTag(key); ok {
		s = key + voidSuffix + ":" + owner + key + counterSuffix + key + channelSuffix
	} else if key != "" && !strings.Contains(key, "}") {
		pre += 2
		s = "{" + key + "}" + voidSuffix + ":" + owner + "{" + key + "}" + counterSuffix + "{" + key + "}" + channelSuffix
	} else {
		return voidKey(key, owner), counterKey(key), channelName(key)
	}
	v := pre + len(voidSuffix) + 1 + len(owner)
	c := v + pre + len(counterSuffix)
	return s[:v], s[v:c], s[c:]
}

// derive returns a name unique to key (per suffix) that Redis Cluster hashes
// to the same slot as key itself, so that one script can touch both:
//
//   - key has a hash tag (a non-empty "{...}" after its first "{"): key plus
//     suffix, which keeps that tag ("a:{42}" gives "a:{42}:token");
//   - key has none and contains no "}": "{key}" plus suffix, whose tag is the
//     whole key ("order:42" gives "{order:42}:token");
//   - otherwise (no tag, but a "}" as in "a}b" or "{}x", or the empty key,
//     which "{}" would not tag): no tag can hold
//     the whole key, so a short tag of the key's slot is used instead, and the
//     key follows the suffix to keep the name unique ("{<tag>}:token:a}b").
func derive(key, suffix string) string {
	if _, ok := hashTag(key); ok {
		return key + suffix
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
