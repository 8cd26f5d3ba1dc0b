package bench

import (
	"fmt"
	"strings"
)

// comparison is one figure on which lock4go is compared with its best peer.
type comparison struct {
	what       string
	metric     func(*Row) float64
	higherWins bool
	// why says why lock4go costs more here, by backend and by whether the
	// subject is one Template (false) or several (true).
	why map[Backend]map[bool]string
}

func (r *Report) comparisons() []comparison {
	n, w := r.maxContenders(), r.maxWaiters()
	return []comparison{
		{what: "uncontended p50", metric: uncontendedP50, why: whyUncontended},
		{what: fmt.Sprintf("throughput, %d goroutines", n), metric: contendedOps(n), higherWins: true, why: whyThroughput},
		{what: fmt.Sprintf("hand-off p50, %d waiters", w), metric: handoffP50(w), why: whyHandoff},
		{what: fmt.Sprintf("hand-off p99, %d waiters", w), metric: handoffP99(w), why: whyHandoff},
		{what: fmt.Sprintf("server commands per acquisition, %d goroutines", n), metric: cmdsPerAcq(n), why: whyCommands},
	}
}

// behind lists, plainly, every figure on which a lock4go row is more than
// 5% worse than the best peer on its backend.
func (r *Report) behind(b *strings.Builder) {
	b.WriteString("## Where lock4go is behind a peer, and why\n\n")
	b.WriteString("Every figure of this run on which a lock4go row is more than 5% worse than the best peer on the same backend, with the reason as far as we know it.\n\n")
	var lines []string
	for _, row := range r.Rows {
		if row.Subject.Kind != KindLock4go {
			continue
		}
		for _, c := range r.comparisons() {
			var pr *Row
			if c.higherWins {
				pr = r.bestPeerHigh(row.Subject.Backend, c.metric)
			} else {
				pr = r.bestPeer(row.Subject.Backend, c.metric)
			}
			mine := c.metric(row)
			if pr == nil || mine <= 0 {
				continue
			}
			theirs := c.metric(pr)
			worse := mine > 1.05*theirs
			if c.higherWins {
				worse = mine < theirs/1.05
			}
			if !worse {
				continue
			}
			line := fmt.Sprintf("- **%s**, %s: %s %s.", row.Subject.Name, c.what, ratio(mine, theirs), pr.Subject.Name)
			if why := c.why[row.Subject.Backend][row.Subject.Templates > 1]; why != "" {
				line += " " + why
			}
			lines = append(lines, line)
		}
	}
	if len(lines) == 0 {
		b.WriteString("Nowhere in this run.\n\n")
		return
	}
	b.WriteString(strings.Join(lines, "\n") + "\n\n")
}

const (
	whyRedisScript    = "Same two round trips as the peers; the acquire script reads the server clock for the fencing token (TIME + SET NX PX, the token kept in the value) and the release compares before it deletes (GET + DEL): 6 server commands per pair against 4–5. The token's share is the fenced floor's (its table above: no peer has a token). The rest of the gap is the client: the Template's turn, owner, bounds and watchdog and the executor's script call touch more code and memory per pair, which costs most when, as here, 16 libraries take turns and each pair starts with cold caches (the latency guard, which alternates lock4go and the floor op by op, finds a smaller ratio)."
	whyPollThroughput = "Pollers look faster because they are unfair: the goroutine that just released takes the key back at once while the others sleep out their retry interval (see the min–max acquisitions per goroutine, the max wait and the timeouts). lock4go hands the key to the goroutine that waited longest"
	whyEtcdUnsynced   = "Across processes each hand-off waits on a watch of the predecessor's key. With no hold time the server-side queue is short (one waiter per process) and turns over fast, so each hand-off pays for setting up a watch and reading the queue again, where concurrency.Mutex's 64 sessions set their watches up long before their turn. etcd 3.4 also holds back the events of a watch that starts at a revision the store has already passed until its 100 ms catch-up loop, which shows in the max wait when it happens."
	whyLocalQueue     = "In one Template the local queue lets only one goroutine per key reach the backend, so the next waiter starts its backend acquisition only after the release: a hand-off is release plus a fresh acquire (two round trips), where the peer's waiters are already queued on the server and need only the delete event and one read."
)

const whyPgWrites = "An advisory lock is two trivial statements on a connection pinned for the whole hold, with no lease, no fencing token and no safety through a transaction pooler; lock4go's two statements each write the lock's row and commit (insert or take over an expired row, with a token from a sequence; delete, or hand the key to the head of the queue)."

const whyMyWrites = "GET_LOCK is two trivial statements on a connection pinned for the whole hold, with no lease, no fencing token and no safety through a pool or proxy that recycles connections; lock4go's two statements each run a procedure that writes the lock's row and commits (take the row, draw a token from an AUTO_INCREMENT; free the row, or hand the key to the head of the queue)."

const whySameRequests = "Same number of requests per pair as the peer (two), but heavier ones: lock4go acquires with a transaction over the key's whole prefix that writes only if the range is empty and otherwise reads the queue's head, and releases with a compare-and-delete transaction on its own entry, where concurrency.Mutex releases with a plain delete; the Template adds its owner, local-queue turn and watchdog bookkeeping."

var whyUncontended = map[Backend]map[bool]string{
	Redis:     {false: whyRedisScript, true: whyRedisScript},
	Etcd:      {false: whySameRequests, true: whySameRequests},
	Postgres:  {false: whyPgWrites, true: whyPgWrites},
	MySQL:     {false: whyMyWrites, true: whyMyWrites},
	ZooKeeper: {false: whyZkUncontended, true: whyZkUncontended},
}

var whyThroughput = map[Backend]map[bool]string{
	Redis: {
		false: whyPollThroughput + " through the local queue, one backend acquisition after another.",
		true:  whyPollThroughput + "; across processes a release grants the key to the head of the wait queue and wakes it with a pub/sub message, and the woken waiter confirms the grant with one more script (see the commands table).",
	},
	Etcd: {
		false: whySerial,
		true:  whyEtcdUnsynced,
	},
	Postgres: {false: whySerial + " On PostgreSQL each of those is a committed write; an advisory lock waits in the server's lock manager and is handed over there."},
	MySQL:    {false: whySerial + " On MySQL each of those is a procedure that commits a write; GET_LOCK's waiters wait in the server and are handed the lock there."},
	ZooKeeper: {
		false: whySerial,
		true:  "Four processes put four waiters in the server's queue against zk.Lock's 64, so fewer round trips overlap, and each lock4go acquisition also reads its own node.",
	},
}

const whyZkUncontended = "The same three requests per pair as zk.Lock (create, one read, delete), of which lock4go waits for two (the read, of the own node with a watch that reports its deletion as a lost lock, is sent without being waited for: the create's reply carries the fencing token), but a heavier create: a multi that also writes the parent's data, whose reply says whether the node is alone under its parent. The Template adds its owner, local-queue turn and watchdog bookkeeping."

// whyZkHandoff: the ZooKeeper executor queues the next local caller on the
// server behind the holder (Capabilities.QueueNext).
const whyZkHandoff = "The next waiter of the Template is queued on the server behind the holder, as zk.Lock's waiters are (Capabilities.QueueNext), so a hand-off is the delete event and one read, as the peer's, and the p50s agree. The p99 of both moves from run to run with the server's fsynced log: `cd bench && go test -run '^$' -bench Handoff/zookeeper -benchtime 5x .` (2026-11-29, quiet) gave lock4go 1.3–6.9 ms and zk.Lock 1.2–7.7 ms over five alternated runs, a median ratio of 1.06×; one run's ratio says little."

const whySerial = "One Template serialises its goroutines in the local queue, so each acquisition is a fresh acquire and release, one after another (several round trips of about 1 ms on this server); the peer's 64 goroutines are all queued on the server and overlap their round trips. This is the price of sending the backend one waiter per process."

var whyHandoff = map[Backend]map[bool]string{
	Etcd:      {false: whyLocalQueue, true: whyEtcdUnsynced},
	Postgres:  {false: whyLocalQueue + " On PostgreSQL the fresh acquire is a committed write; an advisory lock's waiter is granted inside the server at the unlock."},
	MySQL:     {false: whyLocalQueue + " On MySQL the fresh acquire is a procedure that commits a write; GET_LOCK's waiter is granted inside the server at RELEASE_LOCK."},
	ZooKeeper: {false: whyZkHandoff, true: "The processes' waiters are queued on the server as zk.Lock's are, but the woken waiter reads its own node as well as the children before it holds the lock."},
}

var whyCommands = map[Backend]map[bool]string{
	Redis: {
		false: "Server counts include what lock4go's scripts call (TIME for the fencing token, the release's GET before its DEL, EXISTS on the wait queue when goroutines of the process follow); round trips (the *sent* column) are the same as the peers'.",
	},
	ZooKeeper: {true: "Each wait also reads the own node (ExistsW) and, after a wake-up, the children again."},
}

// method describes how figures are taken.
func (r *Report) method(b *strings.Builder) {
	b.WriteString("## Method\n\n")
	b.WriteString("- Every subject asks for a 30 s lease; lock4go uses its default Config (30 s lease renewed by the watchdog, 3 s acquire timeout, 100 ms retry interval, woken early by executors that can tell of releases).\n")
	b.WriteString("- Raw floors make one attempt and never wait; they are measured uncontended only. Redis: `SET NX PX` then an EVALSHA compare-and-delete. etcd: a txn put-if-absent then a txn delete-if-same-revision. ZooKeeper: create an ephemeral node, then delete it.\n")
	b.WriteString("- Peers: bsm/redislock v0.9.4 (LinearBackoff 10 ms: a tighter poll than Lock4j's), go-redsync/redsync v4.18.1 with one node and its default retry, redis/rueidis v1.0.79 `rueidislock` with KeyMajority 1 (its README's single-instance setting; it wakes waiters by client-side-caching invalidations), etcd client v3.7.3 `concurrency.Mutex` with one reused session per contender, go-zookeeper v1.0.4 `zk.Lock` (one per contender on one session; it takes no context, so it never times out), and a Lock4j-style loop (SET NX PX, fixed 100 ms retry, as Lock4j's LockTemplate).\n")
	b.WriteString("- Hand-off of fixed-interval pollers: a waiter that arrives while the key is held fails once and sleeps its whole interval, so with holds shorter than the interval (5 ms here against 100 ms) its hand-off is about the interval minus the hold, and waiters that rejoin right after a hand-off tend to poll in step. With holds much longer than the interval the release falls at a random point of the poll and the hand-off averages half the interval.\n")
	b.WriteString("- Every Redis client is go-redis v9 with a pool of 128 and ContextTimeoutEnabled. Mutual exclusion is checked during contended runs (a counter inside the critical section); violations are listed under errors.\n")
	b.WriteString("- The machine may be shared: figures from a busy machine are indicative. Re-run on a quiet one for figures to publish.\n\n")
}
