// Package zookeeper is a lock4go executor over Apache ZooKeeper (3.5 or
// later), using go-zookeeper's *zk.Conn.
//
// # Layout
//
// Each key gets a lock parent, BasePath + "/" + the escaped key, created as a
// container node so ZooKeeper deletes it once its queue empties. Every
// acquisition creates an ephemeral sequential child named
// _c_<guid>-lock-<sequence>, the layout of Apache Curator's InterProcessMutex
// (hence Lock4j's ZooKeeper executor, with [Lock4jBasePath]) and of
// go-zookeeper's zk.Lock: all three exclude each other on the same parent.
// The queue is ordered by the sequence number ZooKeeper appends, never by
// the whole name; the lowest node holds the lock. Its data is the owner
// value, which [Executor.Inspect] reports. That number is a signed 32-bit
// counter of changes to the parent's children, which turns negative after
// 2^31 of them; it is ordered as unsigned, which holds for 2^32 changes
// (2^31 acquisitions). A parent whose queue empties is deleted, counter and
// all, so only a queue that never empties for that long could outgrow it.
// Curator and zk.Lock order the negative numbers first, so they exclude
// lock4go only before the counter turns negative.
//
// Keys are escaped injectively: '/', '%' and every character ZooKeeper
// rejects in a name are percent-encoded (%2F), "." and ".." become %2E and
// %2E%2E, and a name longer than 200 bytes keeps a prefix followed by "%~"
// and the SHA-256 of the key. Keys of letters, digits and most punctuation
// (such as Lock4j's "lock4j:com.example.Service#method") map to themselves.
//
// # Acquiring
//
// The create is "protected": when its reply is lost with the connection,
// the executor finds its node again by GUID instead of creating a second
// one, and if it cannot tell it deletes whatever carries the GUID in the
// background. A waiter watches only its immediate predecessor, so a release
// wakes exactly one waiter, in FIFO order. A waiter that gives up (its
// context ends, TryLock finds the key held, an error) deletes its node,
// retrying in the background while the connection is down, so no node is
// left to be granted to nobody. go-zookeeper waits for a reply until the
// connection drops, so when a context ends while a call is in flight (a
// create whose reply was lost on a connection that stays up, say), Acquire
// returns at once and deletes whatever carries the attempt's GUID in the
// background, and a create that completes later is deleted too.
//
// # Leases
//
// A lease lasts as long as the session that created its node: the
// session's heartbeat is the renewal ([executor.SelfRenewing]), the TTL of a
// request is ignored, and the fencing token is the node's creation zxid. A
// lease is lost (Lost closes; Renew and Release report
// [executor.ErrLockNotHeld]) when the session expires, when its node is
// deleted by someone else, or when the connection stays without its session
// longer than [Options.DisconnectGrace], zero by default: while
// disconnected the client cannot learn that its session expired and that
// another owner took the lock. [Executor.Close] counts every lease still
// held lost too, since nothing watches its session afterwards; Release
// still deletes its node. The executor notices all three by polling
// the connection's state and the leases' node watches every 50ms while it
// holds leases, in one goroutine; it needs neither the conn's event channel
// nor a goroutine per lease. Renew and Release apply the same rule
// themselves rather than wait for the next poll, so a holder resumed after
// a pause longer than its session hears ErrLockNotHeld from Release, not a
// backend error. Each lease has its own Lost channel, since a node can
// vanish alone, and implements [executor.LostNotifier] so the Template
// needs no goroutine per lease either.
//
// # Connections and ACLs
//
// [New] takes a conn and never dials or closes it; [Dial] is a small helper
// over zk.Connect, and [DialTLS] dials a secureClientPort over TLS, checking
// one handshake first. [Options.ACL] applies to every node created;
// [DigestAuth] authenticates a conn with the digest scheme and returns a
// creator-only ACL. A create or delete the ACL refuses fails with
// [executor.ErrBackend] wrapping zk.ErrNoAuth. Close the executor before the
// conn.
package zookeeper
