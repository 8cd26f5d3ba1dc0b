package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// runInspect implements "lock4go inspect KEY...".
func runInspect(ctx context.Context, std *stdio, args []string) error {
	fs := newFlagSet("inspect", inspectUsage, std.err)
	c := connFlags{readOnly: true}
	c.register(fs)
	keys, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if err := c.check(); err != nil {
		return err
	}
	if len(keys) == 0 {
		return usagef("inspect needs at least one KEY")
	}
	kinds, err := c.configured()
	if err != nil {
		return err
	}
	var states []keyState
	var failed []error
	for _, kind := range kinds {
		s, err := inspectBackend(ctx, &c, kind, keys)
		if err != nil {
			failed = append(failed, err)
		}
		states = append(states, s...)
	}
	if err := printStates(std.out, c.json, states); err != nil {
		return err
	}
	return inspectResult(states, failed)
}

// inspectBackend connects to one backend and inspects every key there. A
// backend that cannot be reached gives one error state per key.
func inspectBackend(ctx context.Context, c *connFlags, kind string, keys []string) ([]keyState, error) {
	b, err := dial(ctx, c, kind)
	if err != nil {
		states := make([]keyState, len(keys))
		for i, k := range keys {
			states[i] = keyState{Backend: kind, Address: c.address(kind), Key: k, Error: err.Error(), err: err, dial: true}
		}
		return states, err
	}
	defer b.close()
	states := make([]keyState, len(keys))
	for i, k := range keys {
		states[i] = inspectKey(ctx, c, b, k)
	}
	return states, nil
}

// inspectResult is inspect's outcome: the first error (a backend's, then a
// key's), else errNotHeld if a key is not held. Unreachable backends were
// reported as such by dial; the output already shows every state.
func inspectResult(states []keyState, failed []error) error {
	if len(failed) > 0 {
		return failed[0]
	}
	for _, s := range states {
		if s.err != nil {
			return s.err
		}
	}
	for _, s := range states {
		if !s.Held {
			return errNotHeld
		}
	}
	return nil
}

// waitersLegend ends inspect's tables: what BACKEND WAITERS counts.
const waitersLegend = `BACKEND WAITERS: one per process waiting for a lock (its goroutines wait behind it in its local
queue: see the process's /debug/locks), one per call waiting for a read lock or permit.
`

// printStates writes states as JSON (an array) or as one table per
// backend: a row per key and per holder, or one line for a backend that
// could not be used.
func printStates(w io.Writer, asJSON bool, states []keyState) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(states)
	}
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
	section, held := "", false
	var keyErrs []string
	for _, s := range states {
		name := s.Backend + " " + s.Address
		if name == section && s.dial {
			continue // the backend's error is shown once
		}
		if name != section {
			if section != "" {
				fmt.Fprintln(tw)
			}
			section = name
			if s.dial {
				fmt.Fprintf(tw, "%s: %s\n", name, strings.TrimPrefix(s.Error, name+": "))
				continue
			}
			fmt.Fprintln(tw, name)
			cells(tw, "KEY", "KIND", "HOLDERS", "OWNER", "TOKEN", "LEASE LEFT", "BACKEND WAITERS")
		}
		held = held || s.Held
		if s.err != nil {
			keyErrs = append(keyErrs, fmt.Sprintf("%s on %s: %v", s.Key, name, s.err))
		}
		printRows(tw, &s)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for line := range strings.Lines(buf.String()) { // cells left empty pad with spaces
		fmt.Fprintln(w, strings.TrimRight(line, " \n"))
	}
	for _, e := range keyErrs {
		fmt.Fprintln(w, "error:", e)
	}
	if held {
		_, err := fmt.Fprint(w, "\n"+waitersLegend)
		return err
	}
	return nil
}

// cells writes one row of the table: the same number of cells on every row
// keeps the columns aligned.
func cells(tw io.Writer, cs ...string) {
	fmt.Fprintln(tw, strings.Join(cs, "\t"))
}

// printRows writes the rows of one key: the first holder beside the key,
// the others below it.
func printRows(tw io.Writer, s *keyState) {
	switch {
	case s.err != nil:
		cells(tw, s.Key, "error (below)", "", "", "", "", "")
		return
	case !s.Held:
		cells(tw, s.Key, "not held", "", "", "", "", "")
		return
	}
	for i, h := range s.Holders {
		if i == 0 {
			cells(tw, s.Key, s.kind(), fmt.Sprint(len(s.Holders)), h.owner(), h.token(), h.ttl(s.Backend), s.waiters())
			continue
		}
		cells(tw, "", "", "", h.owner(), h.token(), h.ttl(s.Backend), "")
	}
}
