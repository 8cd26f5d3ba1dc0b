package zookeeper

import (
	"cmp"
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
	// readName and writeName are the names of Curator's
	// InterProcessReadWriteLock nodes: a read lock, a write lock. The
	// sequence number follows them, read after their last "__".
	readName  = "__READ__"
	writeName = "__WRIT__"
	// seqDigits is the width of the sequence number ZooKeeper appends,
	// sign included.
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
// parent: parent/_c_<guid>-<name>, name being [lockName], [readName] or
// [writeName].
func lockPrefix(parent, guid, name string) string {
	return parent + "/" + protectedPrefix + guid + "-" + name
}

// isReader reports whether the lock node name is a read lock's: Curator's
// InterProcessReadWriteLock read node, which lock4go's read locks create.
// Every other lock node (lock4go's locks, Curator's InterProcessMutex and
// write-lock nodes, zk.Lock's) excludes everyone.
func isReader(name string) bool { return strings.Contains(name, readName) }

// hasGUID reports whether the child name was created with guid.
func hasGUID(name, guid string) bool {
	return strings.HasPrefix(name, protectedPrefix+guid+"-")
}

// seqOf returns the sequence number ZooKeeper appended to a child name: the
// text after the last [lockName] (Curator, zk.Lock and lock4go) or, failing
// that, after the last "__" (kazoo's "__lock__"), as zk.Lock reads it. Every
// sequential child of one parent shares one counter, so the queue is ordered
// by it, never by the whole name, whose GUID prefix is random. ok is false
// for a child that is not a lock node.
//
// ZooKeeper writes the parent's child version, a signed 32-bit counter, as
// Java's "%010d": after 2^31 changes to the parent's children it turns
// negative ("-2147483648", then up to "-000000001"), so the sign is part of
// the number. See [seqPos] for the order.
func seqOf(name string) (seq int32, ok bool) {
	i := strings.LastIndex(name, lockName)
	if i >= 0 {
		i += len(lockName)
	} else if i = strings.LastIndex(name, "__"); i >= 0 {
		i += len("__")
	} else {
		return 0, false
	}
	s := name[i:]
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil || !zkSeqFormat(s, n) {
		return 0, false
	}
	return int32(n), true
}

// zkSeqFormat reports whether s, which parses as n, is how ZooKeeper writes
// n (Java's "%010d"): ten characters, zero-padded after any '-' sign, no
// '+'; eleven only for numbers below -999999999, which need no padding. It
// allocates nothing: it runs for every child of every queue read.
func zkSeqFormat(s string, n int64) bool {
	switch {
	case s[0] == '+':
		return false
	case len(s) == seqDigits:
		return s[0] != '-' || n < 0 // "-000000000" is not how 0 is written
	case len(s) == seqDigits+1:
		return s[0] == '-' && s[1] != '0'
	}
	return false
}

// seqPos is the position of sequence number seq in its queue: seq read as
// unsigned, so the numbers ZooKeeper writes after the counter turns negative
// follow 2147483647 rather than precede 0. The order holds for the first
// 2^32 changes to a parent's children (2^31 acquisitions, each a create and
// a delete); then the counter is back at 0 and newer nodes would sort first.
// A lock parent is a container ZooKeeper deletes once its queue empties,
// which starts a new counter, so only a queue that never empties for that
// long could get there. Curator (which compares the numbers as text) and
// zk.Lock (as signed numbers) do not order across the turn to negative, so
// a queue shared with them is only safe below 2^31 changes.
func seqPos(seq int32) uint32 { return uint32(seq) }

// queue returns the lock nodes among children, ordered by [seqPos]: the
// first holds the lock, the others wait in that order.
func queue(children []string) []string {
	type node struct {
		name string
		pos  uint32
	}
	nodes := make([]node, 0, len(children))
	for _, c := range children {
		if seq, ok := seqOf(c); ok {
			nodes = append(nodes, node{c, seqPos(seq)})
		}
	}
	slices.SortFunc(nodes, func(a, b node) int {
		if c := cmp.Compare(a.pos, b.pos); c != 0 {
			return c
		}
		return strings.Compare(a.name, b.name)
	})
	q := make([]string, len(nodes))
	for i, n := range nodes {
		q[i] = n.name
	}
	return q
}
