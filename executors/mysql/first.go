package mysql

import (
	"context"
	"errors"
	"fmt"

	"github.com/lock4go/lock4go/executor"
)

// checkFirst runs [Check] before the executor's first acquisition: until
// it passes, every acquisition runs it, one at a time, and fails with its
// error, so that a user that could take a lock but not release it, or not
// queue for one, or a server that may lose what it commits, takes none.
// Once it passed, acquisitions pay nothing (the sweeper checks the
// durability settings again, see [Executor.recheck]).
func (e *Executor) checkFirst(ctx context.Context) error {
	if e.checked.Load() {
		return nil
	}
	select {
	case e.checking <- struct{}{}:
	case <-ctx.Done():
		return executor.GaveUp(ctx)
	}
	defer func() { <-e.checking }()
	if e.checked.Load() {
		return nil
	}
	conn, err := e.db.Conn(ctx)
	if err != nil {
		return e.noConnection(ctx, err)
	}
	defer conn.Close()
	cctx, cancel := e.core.CallContext(ctx)
	defer cancel()
	if err := check(cctx, conn, e.opts); err != nil {
		return err
	}
	e.checked.Store(true)
	return nil
}

// checkFailed is the error of an acquisition of key whose [checkFirst]
// failed with err: a connection the server refused (a user it does not
// know, a wrong password, a database that does not exist) is a wrong
// configuration too.
func (e *Executor) checkFailed(ctx context.Context, key string, err error) error {
	switch cerr := configError(err, e.opts); {
	case cerr != nil:
		return fmt.Errorf("mysql: acquire %q: %w", key, cerr)
	case errors.Is(err, errNotSent):
		return e.acquireErr(ctx, key, err)
	}
	return fmt.Errorf("mysql: acquire %q: %w", key, err)
}

// recheck reads the server's durability settings again (the sweeper's,
// every SweepInterval): they are global, and an operator may change them
// while the executor runs. Settings that may lose commits make the next
// acquisition run [Check] again, which refuses them unless
// [Options.AllowUnsafeDurability] accepts them.
func (e *Executor) recheck(ctx context.Context) {
	conn, err := e.db.Conn(ctx)
	if err != nil {
		return
	}
	defer conn.Close()
	s, err := readSettings(ctx, conn)
	if err != nil {
		return
	}
	if err := s.durable(); err != nil && !e.opts.AllowUnsafeDurability {
		e.log.Error("mysql: the server's settings changed: it may lose its last commits in a crash; acquisitions fail until they are durable again (or Options.AllowUnsafeDurability accepts it)", "err", err)
		e.checked.Store(false)
	}
}
