package mysql

import (
	"context"
	"errors"
	"fmt"
)

// checkFirst runs [Check] before the executor's first acquisition
// ([queued.FirstCheck]): a user that could take a lock but not release
// it, or not queue for one, or a server that may lose what it commits,
// takes none. Once it passed, acquisitions pay nothing (the sweeper
// checks the durability settings again, see [Executor.recheck]).
func (e *Executor) checkFirst(ctx context.Context) error {
	return e.checked.Run(ctx, func(ctx context.Context) error {
		conn, err := e.db.Conn(ctx)
		if err != nil {
			return e.noConnection(ctx, err)
		}
		defer conn.Close()
		cctx, cancel := e.core.CallContext(ctx)
		defer cancel()
		return check(cctx, conn, e.opts)
	})
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
		e.checked.Again()
	}
}
