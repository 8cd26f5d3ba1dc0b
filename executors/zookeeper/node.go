package zookeeper

import (
	"crypto/rand"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

const (
	// protectedPrefix starts a "protected" node name, followed by a GUID and
	// a dash, as Curator and go-zookeeper write it: a create whose reply was
	// lost is found again by its GUID.
	protectedPrefix = "_c_"
	// lockName precedes the sequence number in a lock node's name, as in
	// Curator's InterProcessMutex and zk.Lock.
	lockName = "lock-"
	// seqDigits is the width of the sequence number ZooKeeper appends.
	seqDigits = 10
)

// newGUID returns a random version 4 UUID in its 36-character text form,
// the GUID format Curator uses in protected names.
func newGUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// lockPrefix returns the path to create, sequentially, for guid under
// parent: parent/_c_<guid>-lock-.
func lockPrefix(parent, guid string) string {
	return parent + "/" + protectedPrefix + guid + "-" + lockName
}

// hasGUID reports whether the child name was created with guid.
func hasGUID(name, guid string) bool {
	return strings.HasPrefix(name, protectedPrefix+guid+"-")
}

// seqOf returns the sequence number ZooKeeper appended to a child name. Every
// sequential child of one parent shares one counter, so the queue is ordered
// by it, never by the whole name, whose GUID prefix is random. ok is false
// for a child that is not a sequential node.
func seqOf(name string) (seq int64, ok bool) {
	if len(name) < seqDigits {
		return 0, false
	}
	s := name[len(name)-seqDigits:]
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// queue returns the lock nodes among children, ordered by sequence number:
// the first holds the lock, the others wait in that order.
func queue(children []string) []string {
	q := make([]string, 0, len(children))
	for _, c := range children {
		if _, ok := seqOf(c); ok {
			q = append(q, c)
		}
	}
	slices.SortFunc(q, func(a, b string) int {
		sa, _ := seqOf(a)
		sb, _ := seqOf(b)
		switch {
		case sa < sb:
			return -1
		case sa > sb:
			return 1
		}
		return strings.Compare(a, b)
	})
	return q
}
