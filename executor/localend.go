package executor

import "time"

// LocalEnder is implemented by leases that know, by the local clock, how
// long the backend keeps them for sure: every lease the backend renews by
// itself ([Capabilities.SelfRenewing]: a ZooKeeper session's heartbeat, an
// etcd keep-alive), and any other lease whose executor watches a lease of
// its own.
//
// The Template ends a lock at its local end, whoever notices first: a lock
// whose LocalEnd has passed is lost, and Err of the lock and of its
// contexts says so from that instant on, however late a timer or goroutine
// runs. For a lease the Template renews, the earlier of LocalEnd and the
// Template's own end (the last confirmed renewal's send time plus the TTL,
// less [SafetyMargin]) counts.
type LocalEnder interface {
	// LocalEnd returns the local time until which the backend keeps the
	// lease at least, unless it is released or deleted: the send time of
	// the latest request the backend confirmed the lease with (a grant, a
	// keep-alive, any request answered in a ZooKeeper session), plus the
	// lease's TTL or session timeout, less [SafetyMargin] of it. It only
	// moves forward, and only on confirmations: never on a timer. The time
	// must carry the monotonic reading of time.Now (derive it with Add;
	// never convert it through Unix nanoseconds). It is called on every
	// Err of a held lock: it must be cheap (an atomic load), never block,
	// and be safe for concurrent use.
	LocalEnd() time.Time
}
