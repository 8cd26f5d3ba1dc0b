package zookeeper

import (
	"errors"
	"sync"
)

// errAbandoned stops an attempt whose caller gave up: nobody will read its
// result, and it only cleans up.
var errAbandoned = errors.New("zookeeper: acquisition abandoned by its caller")

// Phases of an attempt, as the clean-up of an abandoned Acquire sees them.
const (
	// phaseIdle: no lock node requested yet.
	phaseIdle = iota
	// phaseBusy: ZooKeeper calls in flight, and a lock node may exist.
	// go-zookeeper waits for a reply until the connection drops, so on a
	// live connection that lost a reply the attempt may never see ctx end.
	phaseBusy
	// phaseParked: waiting on a watch; the attempt wakes when ctx ends and
	// deletes its node itself.
	phaseParked
	// phaseRemoving: the attempt stopped and deletes its node itself. Its
	// delete either gets a reply or, when the connection drops, goes on in
	// the background; on a live connection that lost the reply, the delete
	// reached the server.
	phaseRemoving
	// phaseDone: the attempt returned, its node deleted or held by a lease.
	phaseDone
)

// attemptState is what an Acquire and its attempt goroutine share so that the
// attempt's lock node is deleted whichever of the two learns last that the
// caller gave up: a node left in the queue would one day be granted to
// nobody. It is safe for concurrent use.
//
// The rule: when Acquire gives up while the attempt is busy (a create or a
// queue read may be waiting for a reply that never comes), it schedules the
// deletion of whatever carries the attempt's GUID ([Executor.voidPending]);
// once abandoned, the attempt issues no new create, deletes a node whose
// create completes late, and parks no more.
type attemptState struct {
	parent string // the key's lock parent
	guid   string // the GUID in the attempt's node name
	name   string // the node's lock name: lockName, readName or writeName

	mu        sync.Mutex
	phase     int
	abandoned bool // the caller gave up
	creating  bool // a create call is in flight
}

// beginCreate marks a create call in flight. It reports false, and the
// create must not be issued, once the caller gave up.
func (p *attemptState) beginCreate() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.abandoned {
		return false
	}
	p.phase, p.creating = phaseBusy, true
	return true
}

// endCreate marks the create call returned and reports whether the caller
// gave up meanwhile.
func (p *attemptState) endCreate() (abandoned bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.creating = false
	return p.abandoned
}

// isCreating reports whether a create call is in flight.
func (p *attemptState) isCreating() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.creating
}

// isAbandoned reports whether the caller gave up.
func (p *attemptState) isAbandoned() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.abandoned
}

// park marks the attempt waiting on a watch. It reports false, and the
// attempt must not wait, once the caller gave up.
func (p *attemptState) park() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.abandoned {
		return false
	}
	p.phase = phaseParked
	return true
}

// unpark ends a wait: the attempt goes on queueing if goOn is set and the
// caller is still there, otherwise it deletes its node. It reports false,
// and the attempt must only delete its node, once the caller gave up.
func (p *attemptState) unpark(goOn bool) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if goOn && !p.abandoned {
		p.phase = phaseBusy
	} else {
		p.phase = phaseRemoving
	}
	return !p.abandoned
}

// removing marks the attempt stopped and deleting its node itself.
func (p *attemptState) removing() {
	p.mu.Lock()
	p.phase = phaseRemoving
	p.mu.Unlock()
}

// finish marks the attempt returned.
func (p *attemptState) finish() {
	p.mu.Lock()
	p.phase = phaseDone
	p.mu.Unlock()
}

// abandon marks the caller gone and reports whether the attempt is busy, in
// which case the caller must schedule [Executor.voidPending].
func (p *attemptState) abandon() (void bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.abandoned = true
	return p.phase == phaseBusy
}
