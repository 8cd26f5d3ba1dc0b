package zookeeper

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/lock4go/lock4go/executor"
)

// errOtherHolder: the first node of the queue is not the holder asked for.
var errOtherHolder = errors.New("the queue's first node is another holder's")

// ForceRelease implements [executor.ForceReleaser]: it deletes the first
// node of key's queue if it is still h's (creation zxid h.Token, data
// h.Owner), at the version it read. A lock4go holder learns of it at once
// through the watch on its own node (its lease is lost); zk.Lock and
// Curator holders are not told. The next node in the queue is woken as on
// a release.
func (e *Executor) ForceRelease(ctx context.Context, key string, h executor.Holder) error {
	if key == "" {
		return fmt.Errorf("zookeeper: force release: empty key: %w", executor.ErrInvalidKey)
	}
	if e.isClosed() {
		return closedErr("force release", key)
	}
	if err := ctx.Err(); err != nil {
		return backendErr("force release", key, executor.ContextError(ctx))
	}
	parent := e.keyPath(key)
	var err error
	if cerr := e.call(ctx, func() { err = e.forceRelease(parent, h) }); cerr != nil {
		return backendErr("force release", key, cerr)
	}
	switch {
	case errors.Is(err, zk.ErrNoNode), errors.Is(err, zk.ErrBadVersion), errors.Is(err, errOtherHolder):
		return fmt.Errorf("zookeeper: force release %q: %w", key, executor.ErrLockNotHeld)
	case err != nil:
		return backendErr("force release", key, err)
	}
	return nil
}

// forceRelease deletes the first node under parent if it is h's.
func (e *Executor) forceRelease(parent string, h executor.Holder) error {
	children, _, err := e.conn.Children(parent)
	if err != nil {
		return err
	}
	nodes := queue(children)
	if len(nodes) == 0 {
		return zk.ErrNoNode
	}
	path := parent + "/" + nodes[0]
	data, st, err := e.conn.Get(path)
	if err != nil {
		return err
	}
	if st.Czxid != h.Token || string(data) != h.Owner {
		return errOtherHolder
	}
	return e.conn.Delete(path, st.Version)
}
