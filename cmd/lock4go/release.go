package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/lock4go/lock4go/executor"
)

// runRelease implements "lock4go release --force KEY".
func runRelease(ctx context.Context, std *stdio, args []string) error {
	fs := newFlagSet("release", releaseUsage, std.err)
	var c connFlags
	c.register(fs)
	force := fs.Bool("force", false, "required: release breaks a lock that someone else holds")
	yes := fs.Bool("yes", false, "do not ask for confirmation (scripts)")
	keys, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if err := c.check(); err != nil {
		return err
	}
	if len(keys) != 1 {
		return usagef("release needs exactly one KEY")
	}
	if !*force {
		return usagef("release needs --force: it breaks a lock that another process holds")
	}
	b, err := dialOne(ctx, &c)
	if err != nil {
		return err
	}
	defer b.close()
	s := inspectKey(ctx, &c, b, keys[0])
	switch {
	case s.err != nil:
		return s.err
	case !s.Held:
		return fmt.Errorf("%s is not held on %s: nothing to break: %w", s.Key, b, executor.ErrLockNotHeld)
	}
	fmt.Fprintf(std.err, "On %s, %s\n", b, s.line())
	if len(s.Holders) > 1 {
		fmt.Fprintf(std.err, "Only the first of these %d holders is broken: owner %s.\n", len(s.Holders), s.Holders[0].owner())
	}
	fmt.Fprintf(std.err, "If broken, %s\n", b.breakNote(ctx, s.Key, s.holder))
	if !*yes {
		if err := confirm(ctx, std); err != nil {
			return err
		}
	}
	return breakLock(ctx, std, &c, b, &s)
}

// confirm asks on stderr and reads the answer from stdin: y or yes
// confirms; anything else, end of input or an interrupt refuses.
func confirm(ctx context.Context, std *stdio) error {
	fmt.Fprint(std.err, "Break this lock? Only this holder is deleted; if it is still working, two holders may run at once. [y/N] ")
	answer := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(std.in).ReadString('\n')
		answer <- strings.ToLower(strings.TrimSpace(line))
	}()
	select {
	case a := <-answer:
		if !isTerminal(std.in) {
			fmt.Fprintln(std.err, a) // what a terminal would have echoed
		}
		if a == "y" || a == "yes" {
			return nil
		}
	case <-ctx.Done():
		fmt.Fprintln(std.err)
	}
	return errRefused
}

// breakLock deletes s's holder, logs it and prints the outcome.
func breakLock(ctx context.Context, std *stdio, c *connFlags, b *backend, s *keyState) error {
	cctx, cancel := c.call(context.WithoutCancel(ctx))
	defer cancel()
	err := b.exec.ForceRelease(cctx, s.Key, s.holder)
	if errors.Is(err, executor.ErrLockNotHeld) {
		return fmt.Errorf("%s: the holder shown released it or lost it meanwhile; nothing was broken: %w", s.Key, err)
	}
	if err != nil {
		return err
	}
	first := s.Holders[0]
	log := slog.New(slog.NewTextHandler(std.err, nil))
	log.Warn("lock4go: lock broken by hand", "backend", b.kind, "address", b.addr, "key", s.Key, "kind", s.kind(),
		"owner", s.holder.Owner, "token", first.token(), "lease_left", first.ttl(s.Backend), "backend_waiters", s.waiters())
	if c.json {
		return json.NewEncoder(std.out).Encode(struct {
			Broken bool `json:"broken"`
			*keyState
		}{true, s})
	}
	_, err = fmt.Fprintf(std.out, "broke %s on %s: owner %s, token %s\n", s.Key, b, first.owner(), first.token())
	return err
}

// isTerminal reports whether r is a terminal, which echoes what is typed.
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
