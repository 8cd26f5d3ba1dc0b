package testserver

import (
	"errors"
	"fmt"
)

// ErrNotInstalled is returned (wrapped) by the Start functions when a server
// binary, java or the ZooKeeper jar is missing. [Check] turns it into a skip
// unless LOCK4GO_REQUIRE_BACKENDS=1.
var ErrNotInstalled = errors.New("testserver: backend not installed")

// ErrNotRunning is returned by [Server.Pause] when the process is not running
// and by [Server.Restart] after [Server.Stop].
var ErrNotRunning = errors.New("testserver: server not running")

// ErrNoLeader is returned by [Cluster.Leader] when no reachable member, or
// more than one, reports itself leader.
var ErrNoLeader = errors.New("testserver: no single leader")

// ErrNotApplicable is returned by [Cluster.Leader] for a Redis Cluster, which
// has one master per slot range and no single leader.
var ErrNotApplicable = errors.New("testserver: not applicable")

// errAddrInUse marks a start that failed because a port was taken between
// choosing it and binding it; the Start functions retry with new ports.
var errAddrInUse = errors.New("testserver: address already in use")

// notInstalled reports a missing program, naming the set-up command.
func notInstalled(what string) error {
	return fmt.Errorf("%s not installed: run `make setup` (or scripts/setup.sh): %w", what, ErrNotInstalled)
}
