package redis

import "sync"

// slots is the number of Redis Cluster hash slots.
const slots = 16384

// keySlot returns the Redis Cluster hash slot of key (CRC16/XMODEM of its
// hash tag, or of the whole key, modulo 16384), as CLUSTER KEYSLOT does.
func keySlot(key string) int {
	if tag, ok := hashTag(key); ok {
		key = tag
	}
	return int(crc16(key)) % slots
}

// crc16 is CRC-16/XMODEM (polynomial 0x1021, initial value 0), the checksum
// Redis Cluster uses.
func crc16(s string) uint16 {
	var crc uint16
	for i := 0; i < len(s); i++ {
		crc ^= uint16(s[i]) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return crc
}

// tagAlphabet holds the characters of slot tags: printable, no braces.
const tagAlphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_"

var (
	slotTagsOnce sync.Once
	slotTags     *[slots][3]byte
)

// slotTag returns a three-character hash tag that hashes to slot. The table
// is built on first use (a few milliseconds, 48 KiB); only keys that contain
// "}" but no hash tag need it.
func slotTag(slot int) [3]byte {
	slotTagsOnce.Do(func() {
		var t [slots][3]byte
		var filled [slots]bool
		var b [3]byte
		for _, c0 := range []byte(tagAlphabet) {
			for _, c1 := range []byte(tagAlphabet) {
				for _, c2 := range []byte(tagAlphabet) {
					b = [3]byte{c0, c1, c2}
					s := int(crc16(string(b[:]))) % slots
					if !filled[s] {
						filled[s], t[s] = true, b
					}
				}
			}
		}
		// 64³ candidates cover all 16384 slots (checked by a test).
		slotTags = &t
	})
	return slotTags[slot]
}
