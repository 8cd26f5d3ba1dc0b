package zookeeper

import (
	"errors"
	"fmt"
	"path"

	"github.com/go-zookeeper/zk"
)

// maxCreateTries bounds the attempts to create a lock node: a missing parent
// (a container node ZooKeeper removed after it emptied) or a lost reply each
// cost one more.
const maxCreateTries = 5

// errUncertain marks a create whose outcome is unknown: the node may exist,
// and a background search by GUID deletes it once the connection is back.
var errUncertain = errors.New("zookeeper: create outcome unknown, cleaning up in the background")

// create creates the protected ephemeral sequential lock node for p's GUID
// under p's parent, holding data, and returns its name (without the
// parent). When a reply is lost it finds the node by its GUID rather than
// creating a second one; when it cannot tell whether the node exists it
// schedules its removal, whatever session the node may be in, and returns
// an error wrapping errUncertain. Once p's caller gave up it issues no
// further create; a node whose create completed is returned all the same
// (the caller deletes it), and when the outcome of the last create is
// unknown the void loop the caller scheduled ([Executor.voidPending]) deletes
// it.
func (e *Executor) create(p *attemptState, data []byte) (string, error) {
	parent, guid := p.parent, p.guid
	prefix := lockPrefix(parent, guid, p.name)
	var err error
	for range maxCreateTries {
		if !p.beginCreate() {
			return "", errAbandoned
		}
		var path string
		path, err = e.conn.Create(prefix, data, zk.FlagEphemeralSequential, e.acl)
		abandoned := p.endCreate()
		switch {
		case err == nil:
			return path[len(parent)+1:], nil
		case abandoned:
			return "", fmt.Errorf("%w: %w", errAbandoned, err)
		case errors.Is(err, zk.ErrNoNode):
			if err = e.ensureParent(parent); err != nil {
				return "", err
			}
		case !maybeApplied(err):
			return "", err
		default:
			name, found, serr := e.findGUID(parent, guid)
			if serr != nil {
				e.voidGUID(parent, guid)
				return "", fmt.Errorf("%w: %w", errUncertain, err)
			}
			if found {
				return name, nil
			}
			// The create never took effect: try again with the same GUID.
		}
	}
	return "", err
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
