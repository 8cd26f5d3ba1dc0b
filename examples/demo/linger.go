package main

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/lock4go/lock4go"
)

// defaultLinger is how long --linger alone keeps the demo alive.
const defaultLinger = 10 * time.Second

// lingerFlag is --linger: off by default, defaultLinger when given alone,
// or --linger=DURATION.
type lingerFlag struct{ d *time.Duration }

func (f lingerFlag) String() string {
	if f.d == nil || *f.d == 0 {
		return "off"
	}
	return f.d.String()
}

func (f lingerFlag) Set(s string) error {
	if b, err := strconv.ParseBool(s); err == nil {
		*f.d = 0
		if b {
			*f.d = defaultLinger
		}
		return nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return fmt.Errorf("want a duration such as 30s, got %q", s)
	}
	*f.d = d
	return nil
}

func (f lingerFlag) IsBoolFlag() bool { return true }

// lingerKey is the order whose lock the demo holds while it lingers.
const lingerKey = "lock4go:pay#0"

// linger holds lingerKey on instance 1 with payments queued behind it on
// instances 1 and 2, prints how to look at it, and keeps the process (and
// the embedded etcd) alive for cfg.linger. cfg.whileLingering, if set, runs
// once all of that is in place.
func linger(ctx context.Context, cfg config, b backend, svcs []*service, debugURL string) error {
	l, err := svcs[0].tpl.Lock(ctx, lingerKey)
	if err != nil {
		return fmt.Errorf("linger: %w", err)
	}
	defer l.Release(context.WithoutCancel(ctx))
	wctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	for _, tpl := range []*lock4go.Template{svcs[0].tpl, svcs[0].tpl, svcs[1].tpl} {
		wg.Go(func() {
			w, err := tpl.Lock(wctx, lingerKey, lock4go.WithAcquireTimeout(cfg.linger+time.Minute))
			if err == nil {
				_ = w.Release(context.WithoutCancel(wctx))
			}
		})
	}
	fmt.Fprintf(cfg.out, "\nLingering %v: instance 1 holds %s, two of its payments and one of instance 2 wait for it.\n", cfg.linger, lingerKey)
	fmt.Fprintf(cfg.out, "Look at %s, or read the lock from the backend:\n", debugURL)
	fmt.Fprintln(cfg.out, inspectLine(b))
	if cfg.whileLingering != nil {
		if err := cfg.whileLingering(debugURL); err != nil {
			return fmt.Errorf("linger: %w", err)
		}
	}
	t := time.NewTimer(cfg.linger)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
	return nil
}

// inspectLine is the command a user would type to read lingerKey from the
// backend with the lock4go CLI.
func inspectLine(b backend) string {
	return fmt.Sprintf("  go run ./cmd/lock4go inspect %s '%s'", b.InspectFlags(), lingerKey)
}
