// Package reliability is lock4go's reliability suite: it answers "can two
// holders ever act at once, and do I ever lose a lock without being told?"
// against real Redis, ZooKeeper and etcd servers.
//
// The program cmd/lockcheck runs M goroutines in one process; the tests run
// N such processes against one backend while they inject faults (a holder
// paused with SIGSTOP or killed, the server paused, restarted or cut off by
// a proxy, replies dropped, cluster leaders killed). Each holder does an
// unprotected read-sleep-write on a shared [Record] file, presents its
// fencing token to a [Fence] (a flock-guarded file that rejects tokens
// lower than the highest it accepted) before it writes, and logs the
// interval in which it believed it held the lock. [Analyse] merges the logs
// and reports overlaps of believed-held intervals, lost updates, stale
// writes rejected and lost-lock signals. With --lock-kind rw the holders
// take read locks (two in three holds; readers only read the record) and
// write locks, and a writer overlapping anyone is a violation; with
// --lock-kind permits --permits n they take permits, and more than n held
// at once is one.
//
// The tests also feed the histories to porcupine, a public
// linearizability checker, with a model of a fenced lock guarding a
// register (writes carry tokens, the store rejects lower ones, an accepted
// write must build on the last): the two checkers must agree on whether an
// update was lost. Every history is checked so under LOCK4GO_SOAK=1 (or
// LOCK4GO_PORCUPINE=1), two short real ones in every run.
//
// The tests start one redis-server, ZooKeeper and etcd in TestMain (plus
// the clusters of TestClusterFailover), build cmd/lockcheck once, and run
// the backends in parallel, each backend's scenarios one after another.
// LOCK4GO_SOAK=1 (make soak) runs longer and repeats each fault:
//
//	LOCK4GO_REQUIRE_BACKENDS=1 go test -race ./internal/reliability/
//	LOCK4GO_SOAK=1 LOCK4GO_REQUIRE_BACKENDS=1 go test -race -timeout 60m -v ./internal/reliability/
//
// The package holds only test machinery; nothing in lock4go imports it.
package reliability
