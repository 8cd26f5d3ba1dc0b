package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// runWatch implements "lock4go watch KEY".
func runWatch(ctx context.Context, std *stdio, args []string) error {
	fs := newFlagSet("watch", watchUsage, std.err)
	c := connFlags{readOnly: true}
	c.register(fs)
	interval := fs.Duration("interval", 500*time.Millisecond, "how often to ask the backend")
	keys, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if err := c.check(); err != nil {
		return err
	}
	if len(keys) != 1 {
		return usagef("watch needs exactly one KEY")
	}
	if *interval <= 0 {
		return usagef("--interval %v: must be positive", *interval)
	}
	b, err := dialOne(ctx, &c)
	if err != nil {
		return err
	}
	defer b.close()
	fmt.Fprintf(std.err, "watching %s on %s every %v; Ctrl-C to stop\n", keys[0], b, *interval)
	return watch(ctx, std, &c, b, keys[0], *interval)
}

// watch polls key until ctx ends and prints each change.
func watch(ctx context.Context, std *stdio, c *connFlags, b *backend, key string, interval time.Duration) error {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	var last *keyState
	for {
		s := inspectKey(ctx, c, b, key)
		if ctx.Err() != nil {
			return nil // interrupted: the last call's outcome means nothing
		}
		if last == nil || !sameHolder(last, &s) {
			if err := printChange(std, c.json, &s); err != nil {
				return err
			}
			last = &s
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// printChange prints one state of watch: a timestamped line, or a JSON
// object per line.
func printChange(std *stdio, asJSON bool, s *keyState) error {
	now := time.Now()
	if asJSON {
		s.Time = &now
		return json.NewEncoder(std.out).Encode(s)
	}
	_, err := fmt.Fprintf(std.out, "%s %s\n", now.Format("15:04:05.000"), s.line())
	return err
}
