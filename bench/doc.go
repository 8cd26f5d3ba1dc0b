// Package bench measures lock4go against the raw protocol floors of its
// backends (Redis, etcd, ZooKeeper) and against peer Go lock libraries
// (bsm/redislock, go-redsync/redsync, etcd's concurrency.Mutex, go-zookeeper's
// zk.Lock, and a Lock4j-style polling loop), in one process against the same
// servers.
//
// It is a nested module so that the peers never become dependencies of
// lock4go itself. The program cmd/lockbench runs every measurement and writes
// docs/bench.md and docs/bench.svg; the Go benchmarks in this package measure
// the uncontended pairs, and TestScale_heldLocks holds 100k locks under the
// watchdog.
//
// A [Subject] is one library (or raw floor) on one backend; its
// [Subject.Contender] gives each measuring goroutine a [Locker]. The measures
// are [Uncontended], [Contended] and [Handoff]; [Counter]s count backend
// commands around a measure.
package bench
