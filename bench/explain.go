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
	why        map[Backend]string // why lock4go costs more here, when it does
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
			line := fmt.Sprintf("- **%s**, %s: %s of %s.", row.Subject.Name, c.what, ratio(mine, theirs), pr.Subject.Name)
			if why := c.why[row.Subject.Backend]; why != "" {
				line += " " + why
			}
			lines = append(lines, line)
		}
	}
	if len(lines) == 0 {
		b.WriteString("Nowhere in this run (within 5%).\n\n")
		return
	}
	b.WriteString(strings.Join(lines, "\n") + "\n\n")
}

var whyUncontended = map[Backend]string{
	Redis: "lock4go's acquire is one EVALSHA that also increments the key's fencing counter (SET NX PX + INCR + PEXPIRE inside the script), and the Template adds an owner from crypto/rand, the local-queue turn and the watchdog bookkeeping; bsm/redislock runs a smaller script with no fencing token.",
}

var whyThroughput = map[Backend]string{
	Redis: "pollers win raw throughput because the releaser re-acquires at once while waiters sleep (see the min–max spread and timeouts): their throughput is one goroutine looping, not a fair hand-off. lock4go hands the key to the next waiter (local queue, pub/sub wake-up), which costs a wake-up per acquisition.",
}

var whyHandoff = map[Backend]string{}

var whyCommands = map[Backend]string{
	Redis: "server counts include the commands lock4go's scripts call (a fencing-token INCR and a PUBLISH per release); per round trip (the *sent* column) lock4go needs fewer.",
}

// method describes how figures are taken.
func (r *Report) method(b *strings.Builder) {
	b.WriteString("## Method\n\n")
	b.WriteString("- Every subject asks for a 30 s lease; lock4go uses its default Config (30 s lease renewed by the watchdog, 3 s acquire timeout, 100 ms retry interval, woken early by executors that can tell of releases).\n")
	b.WriteString("- Raw floors make one attempt and never wait; they are measured uncontended only. Redis: `SET NX PX` then an EVALSHA compare-and-delete. etcd: a txn put-if-absent then a txn delete-if-same-revision. ZooKeeper: create an ephemeral node, then delete it.\n")
	b.WriteString("- Peers: bsm/redislock v0.9.4 (LinearBackoff 10 ms: a tighter poll than Lock4j's), go-redsync/redsync v4.18.1 with one node and its default retry, etcd client v3.7.3 `concurrency.Mutex` with one reused session per contender, go-zookeeper v1.0.4 `zk.Lock` (one per contender on one session; it takes no context, so it never times out), and a Lock4j-style loop (SET NX PX, fixed 100 ms retry, as Lock4j's LockTemplate).\n")
	b.WriteString("- Every Redis client is go-redis v9 with a pool of 128 and ContextTimeoutEnabled. Mutual exclusion is checked during contended runs (a counter inside the critical section); violations are listed under errors.\n")
	b.WriteString("- The machine may be shared: figures from a busy machine are indicative. Re-run on a quiet one for figures to publish.\n\n")
}
