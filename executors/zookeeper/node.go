package zookeeper

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-zookeeper/zk"
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

// keyPath returns the lock parent of key.
func (e *Executor) keyPath(key string) string { return e.base + "/" + escapeKey(key) }

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

// maxCreateTries bounds the attempts to create a lock node: a missing parent
// (a container node ZooKeeper removed after it emptied) or a lost reply each
// cost one more.
const maxCreateTries = 5

// errUncertain marks a create whose outcome is unknown: the node may exist,
// and a background search by GUID deletes it once the connection is back.
var errUncertain = errors.New("zookeeper: create outcome unknown, cleaning up in the background")

// create creates the protected ephemeral sequential lock node for p's GUID
// under p's parent, holding data, and returns its name (without the
// parent) and, when the reply told (see createNode), whether the node is
// its parent's only child. When a reply is lost it finds the node by its GUID rather than
// creating a second one; when it cannot tell whether the node exists it
// schedules its removal, whatever session the node may be in, and returns
// an error wrapping errUncertain. Once p's caller gave up it issues no
// further create; a node whose create completed is returned all the same
// (the caller deletes it), and when the outcome of the last create is
// unknown the void loop the caller scheduled ([Executor.voidPending]) deletes
// it.
func (e *Executor) create(p *attemptState, data []byte) (name string, alone aloneNode, err error) {
	parent, guid := p.parent, p.guid
	prefix := lockPrefix(parent, guid, p.name)
	for range maxCreateTries {
		if !p.beginCreate() {
			return "", aloneNode{}, errAbandoned
		}
		var path string
		path, alone, err = e.createNode(prefix, parent, data, p.askAlone)
		abandoned := p.endCreate()
		switch {
		case err == nil:
			return path[len(parent)+1:], alone, nil
		case abandoned:
			return "", aloneNode{}, fmt.Errorf("%w: %w", errAbandoned, err)
		case errors.Is(err, zk.ErrNoNode):
			if err = e.ensureParent(parent); err != nil {
				return "", aloneNode{}, err
			}
		case !maybeApplied(err):
			return "", aloneNode{}, err
		default:
			name, found, serr := e.findGUID(parent, guid)
			if serr != nil {
				e.voidGUID(parent, guid)
				return "", aloneNode{}, fmt.Errorf("%w: %w", errUncertain, err)
			}
			if found {
				return name, aloneNode{}, nil
			}
			// The create never took effect: try again with the same GUID.
		}
	}
	return "", aloneNode{}, err
}

// aloneNode is what a create's multi tells of a node it found its parent's
// only child: the transaction's zxid, which is the node's creation zxid
// (every operation of a multi commits in one transaction, so the parent's
// modification zxid in the write's reply is it), and the session it was
// created in. The zero value: the node is not known to be alone.
type aloneNode struct {
	zxid, session int64
}

// createNode creates the ephemeral sequential node prefix under parent,
// holding data, and returns its path. The create goes in a multi with a
// write of the parent's data (set to none, as ensureParent creates it),
// whose reply carries the parent's stat after the create: alone reports
// that the node is the parent's only child, first in the queue, so that
// the attempt need not read the queue (zk.Lock's three requests per
// uncontended lock: create, one read, delete); the reply also carries the
// node's creation zxid (its fencing token), so that the one read, which
// sets the watch on the node, need not be waited for. A node is reported
// alone only if the session did not change around the multi, so that it is
// known to be the session's. A parent that refuses the write (its ACL
// grants create but not write) gets a plain create, and the executor makes
// plain creates from then on: alone is zero. Without askAlone the create is
// a plain one.
func (e *Executor) createNode(prefix, parent string, data []byte, askAlone bool) (path string, alone aloneNode, err error) {
	if askAlone && !e.plainCreate.Load() {
		session := e.conn.SessionID()
		var res []zk.MultiResponse
		res, err = e.conn.Multi(
			&zk.CreateRequest{Path: prefix, Data: data, Acl: e.acl, Flags: zk.FlagEphemeralSequential},
			&zk.SetDataRequest{Path: parent, Version: -1},
		)
		switch {
		case err == nil && len(res) == 2 && res[1].Stat != nil:
			if st := res[1].Stat; st.NumChildren == 1 && session != 0 && e.conn.SessionID() == session {
				alone = aloneNode{zxid: st.Mzxid, session: session}
			}
			return res[0].String, alone, nil
		case err == nil:
			return "", aloneNode{}, fmt.Errorf("zookeeper: create: a multi answered %d results: %w", len(res), zk.ErrAPIError)
		case !errors.Is(err, zk.ErrNoAuth):
			return "", aloneNode{}, err
		}
	}
	path, err = e.conn.Create(prefix, data, zk.FlagEphemeralSequential, e.acl)
	if askAlone && err == nil && !e.plainCreate.Swap(true) {
		e.log.LogAttrs(context.Background(), slog.LevelInfo,
			"zookeeper: a lock parent refuses writes of its data (its ACL); creating lock nodes without the multi that saves a queue read",
			slog.String("parent", parent))
	}
	return path, aloneNode{}, err
}

// findGUID looks for the child of parent created with guid. It syncs the
// server first, so a create that reached the leader before the connection
// dropped is visible even on another server of the ensemble.
func (e *Executor) findGUID(parent, guid string) (string, bool, error) {
	if _, err := e.conn.Sync(parent); err != nil && !errors.Is(err, zk.ErrNoNode) {
		return "", false, err
	}
	children, _, err := e.conn.Children(parent)
	if errors.Is(err, zk.ErrNoNode) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	for _, c := range children {
		if hasGUID(c, guid) {
			return c, true, nil
		}
	}
	return "", false, nil
}

// ensureParent creates the lock parent as a container node, which ZooKeeper
// (3.5 and later) deletes once its last child is gone, so parents do not
// pile up with key cardinality. The base path is created, persistent, when
// missing.
func (e *Executor) ensureParent(parent string) error {
	_, err := e.conn.CreateContainer(parent, nil, zk.FlagContainer, e.acl)
	if errors.Is(err, zk.ErrNoNode) {
		// A semaphore's "locks" and "leases" live under the key's parent,
		// itself a container.
		if dir := path.Dir(parent); len(dir) > len(e.base) {
			err = e.ensureParent(dir)
		} else {
			err = e.ensureBase()
		}
		if err != nil {
			return err
		}
		_, err = e.conn.CreateContainer(parent, nil, zk.FlagContainer, e.acl)
	}
	if err != nil && !errors.Is(err, zk.ErrNodeExists) {
		return err
	}
	return nil
}

// ensureBase creates every missing node of the base path.
func (e *Executor) ensureBase() error {
	for i := 1; i <= len(e.base); i++ {
		if i < len(e.base) && e.base[i] != '/' {
			continue
		}
		p := e.base[:i]
		if _, err := e.conn.Create(p, nil, zk.FlagPersistent, e.acl); err != nil && !errors.Is(err, zk.ErrNodeExists) {
			return err
		}
	}
	return nil
}

// maybeApplied reports whether a write that failed with err may still have
// taken effect: its request may have reached the server while the reply was
// lost. Errors the server returned, requests go-zookeeper never sent, and
// failures that end the session (which takes ephemeral nodes with it) are
// certain.
func maybeApplied(err error) bool {
	for _, sure := range []error{
		zk.ErrNoNode, zk.ErrNodeExists, zk.ErrNoAuth, zk.ErrInvalidACL, zk.ErrBadArguments,
		zk.ErrNoChildrenForEphemerals, zk.ErrInvalidPath, zk.ErrInvalidFlags, zk.ErrBadVersion,
		zk.ErrNotEmpty, zk.ErrAPIError, zk.ErrAuthFailed, zk.ErrSessionMoved,
		zk.ErrNoServer, zk.ErrSessionExpired, zk.ErrClosing,
	} {
		if errors.Is(err, sure) {
			return false
		}
	}
	return true
}
