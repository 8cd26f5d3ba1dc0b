package redlock_test

import (
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executors/redlock"
)

// serverCommands sums every command the masters ran (INFO commandstats,
// scripts' calls included).
func serverCommands(t *testing.T, addrs []string) int64 {
	t.Helper()
	var sum int64
	for _, a := range addrs {
		c := goredis.NewClient(&goredis.Options{Addr: a})
		info, err := c.Info(t.Context(), "commandstats").Result()
		_ = c.Close()
		if err != nil {
			t.Fatal(err)
		}
		for line := range strings.Lines(info) {
			if _, rest, ok := strings.Cut(strings.TrimSpace(line), ":calls="); ok {
				calls, _, _ := strings.Cut(rest, ",")
				n, _ := strconv.ParseInt(calls, 10, 64)
				sum += n
			}
		}
	}
	return sum - int64(len(addrs)) // the INFO of this reading
}

// TestCommandsPerAcquisition reports the server commands, over the three
// masters, of an uncontended Lock+Release, and of one key taken in turns
// by two executors whose waiters queue.
func TestCommandsPerAcquisition(t *testing.T) {
	a := addrs(t)
	e := newExecutor(t, a, redlock.Options{})
	k := key(t)
	const n = 200
	pair := func(e *redlock.Executor, wait bool) {
		r := request(k, time.Minute)
		r.Wait = wait
		for {
			l, err := e.Acquire(t.Context(), r)
			if err == nil {
				if err := l.Release(t.Context()); err != nil {
					t.Error(err)
				}
				return
			}
			r.Owner = owner()
		}
	}
	pair(e, false)
	before := serverCommands(t, a)
	for range n {
		pair(e, false)
	}
	t.Logf("uncontended: %.2f server commands per Lock+Release over %d masters", float64(serverCommands(t, a)-before)/n, len(a))

	other := newExecutor(t, a, redlock.Options{})
	before = serverCommands(t, a)
	var wg sync.WaitGroup
	for _, ex := range []*redlock.Executor{e, other} {
		wg.Go(func() {
			for range n / 2 {
				pair(ex, true)
			}
		})
	}
	wg.Wait()
	t.Logf("two executors in turns (no Template, retry without waiting): %.2f server commands per acquisition", float64(serverCommands(t, a)-before)/n)
}

// TestCommandsPerAcquisition_templates reports the server commands, over
// the three masters, per acquisition of one key taken in turns by the
// goroutines of two Templates (each its own executor), as waiting callers
// do: queued, woken, then granted.
func TestCommandsPerAcquisition_templates(t *testing.T) {
	a := addrs(t)
	k := key(t)
	const perG, goroutines = 25, 4
	var tpls []*lock4go.Template
	for range 2 {
		tpl, err := lock4go.New(lock4go.Config{}, newExecutor(t, a, redlock.Options{}))
		if err != nil {
			t.Fatal(err)
		}
		tpls = append(tpls, tpl)
	}
	before := serverCommands(t, a)
	var wg sync.WaitGroup
	for _, tpl := range tpls {
		for range goroutines {
			wg.Go(func() {
				for range perG {
					l, err := tpl.Lock(t.Context(), k, lock4go.WithAcquireTimeout(10*time.Second))
					if err != nil {
						t.Error(err)
						return
					}
					time.Sleep(200 * time.Microsecond)
					if err := l.Release(t.Context()); err != nil {
						t.Error(err)
					}
				}
			})
		}
	}
	wg.Wait()
	n := float64(len(tpls) * goroutines * perG)
	t.Logf("two Templates, %d goroutines each, in turns: %.2f server commands per acquisition over %d masters", goroutines, float64(serverCommands(t, a)-before)/n, len(a))
}
