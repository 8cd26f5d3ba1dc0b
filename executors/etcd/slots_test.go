package etcd_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/etcd"
	"github.com/lock4go/lock4go/internal/testserver"
)

// Read locks and permits of one process use their entries' names again:
// etcd keeps every key name ever written in its index until a compaction,
// and every acquisition reads the key's queue, walking all of them, so a
// name per acquisition slowed read locks down with each one taken before
// (writer p50 60 → 119 → 204 ms over three rounds of 6 500 read locks).
// Taken one after another they write one name; taken by g goroutines at
// once, at most g (a slot is used again only once its entry is known
// deleted).
func TestExecutor_Acquire_sharesReuseEntryNames(t *testing.T) {
	testserver.Check(t, srvErr)
	cli := newClient(t, srv.Addr())
	e := newExec(t, cli, etcd.Options{})
	for _, tc := range []struct {
		name string
		req  func(key string) executor.Request
	}{
		{"read", func(k string) executor.Request { return read(k, true) }},
		{"permit", func(k string) executor.Request { r := watchdog(k, true); r.Permits = 3; return r }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := uniqueKey(t)
			// names returns the names of the entries written in the key's
			// range since revision from: it watches from there up to a
			// sentinel key written last (not a member: it has a "/" more).
			names := func(from int64) map[string]bool {
				sentinel := k + "/sentinel/" + newOwner()
				if _, err := cli.Put(t.Context(), sentinel, ""); err != nil {
					t.Fatal(err)
				}
				wctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				seen := map[string]bool{}
				for wr := range cli.Watch(wctx, k+"/", clientv3.WithPrefix(), clientv3.WithRev(from), clientv3.WithFilterDelete()) {
					if err := wr.Err(); err != nil {
						t.Fatal(err)
					}
					for _, ev := range wr.Events {
						if string(ev.Kv.Key) == sentinel {
							return seen
						}
						if !strings.Contains(string(ev.Kv.Key), "/sentinel/") {
							seen[string(ev.Kv.Key)] = true
						}
					}
				}
				t.Fatal("the watch ended before the sentinel")
				return nil
			}
			start, err := cli.Get(t.Context(), k+"/")
			if err != nil {
				t.Fatal(err)
			}
			for range 20 {
				mustRelease(t, mustAcquire(t, e, tc.req(k)))
			}
			if got := names(start.Header.Revision + 1); len(got) != 1 {
				t.Errorf("20 %s acquisitions one after another wrote %d entry names, want 1: %v", tc.name, len(got), keys(got))
			}
			mid, err := cli.Get(t.Context(), k+"/")
			if err != nil {
				t.Fatal(err)
			}
			const g = 3 // at most 3 permits: none waits
			var wg sync.WaitGroup
			for range g {
				wg.Go(func() {
					for range 20 {
						l, err := e.Acquire(t.Context(), tc.req(k))
						if err != nil {
							t.Error(err)
							return
						}
						if err := l.Release(t.Context()); err != nil {
							t.Error(err)
						}
					}
				})
			}
			wg.Wait()
			if got := names(mid.Header.Revision + 1); len(got) > g {
				t.Errorf("%d goroutines taking 20 %s acquisitions each wrote %d entry names, want at most %d: %v", g, tc.name, len(got), g, keys(got))
			}
		})
	}
}

// keys returns the keys of m.
func keys(m map[string]bool) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}
