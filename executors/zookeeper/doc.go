// Package zookeeper is the lock4go executor for Apache ZooKeeper (3.5 or
// later), over go-zookeeper's *zk.Conn.
//
// [New] takes a conn the caller dialled and owns ([Dial] and [DialTLS] are
// small helpers; [DigestAuth] authenticates a conn and returns a
// creator-only ACL for [Options.ACL]). Close the executor before the conn.
//
// A lock on a key is a queue of ephemeral sequential nodes under the key's
// lock parent, in the layout of Apache Curator's InterProcessMutex and of
// go-zookeeper's zk.Lock: all three exclude each other on the same parent
// (use [Lock4jBasePath] to share locks with Lock4j's ZooKeeper executor).
// Waiters are served in FIFO order and each release wakes one waiter.
//
// A lease lasts as long as the ZooKeeper session that created its node: the
// session's heartbeat renews it and a request's TTL is ignored. The fencing
// token is the node's creation zxid. A lease is lost when the session
// expires, when its node is deleted by someone else, when the connection
// stays without its session longer than [Options.DisconnectGrace] (zero by
// default: a client that cannot hear of an expiry no longer vouches for the
// lock), or when the executor is closed. By the local clock a lease lasts
// until its session was last heard from plus [Options.SessionTimeout]: set
// it to the session timeout you dialled when that is under 4s.
//
// Guarantees and caveats:
//
//   - A create whose reply was lost never returns a lease: the executor
//     finds its node by GUID or voids it in the background.
//   - Keys are escaped injectively into node names; keys of letters, digits
//     and most punctuation map to themselves.
//   - Locks outlive a ZooKeeper restart; a conn that is closed ends every
//     lease of its session.
//
// The layout, escaping, sequence numbers, session rules and ACLs are
// described in docs/zookeeper.md of the repository:
// https://github.com/lock4go/lock4go/blob/main/docs/zookeeper.md
package zookeeper
