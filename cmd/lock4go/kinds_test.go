package main

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/lock4go/lock4go"
)

// TestInspect_kinds: two readers show as two holders of a read lock, with
// their owners and tokens; two permits of 3 as "permits 3".
func TestInspect_kinds(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backendCase) {
		if b.kind == "redlock" {
			t.Skip("Redlock has mutexes only")
		}
		for _, tc := range []struct {
			kind    string
			opt     lock4go.LockOption
			permits int
		}{
			{"read", lock4go.Shared(), 0},
			{"permits", lock4go.WithPermits(3), 3},
		} {
			t.Run(tc.kind, func(t *testing.T) {
				key := uniqueKey(t)
				var ls []*lock4go.Lock
				for range 2 { // two processes
					l, err := newTemplate(t, b.executor(t)).Lock(t.Context(), key, tc.opt)
					if err != nil {
						t.Fatal(err)
					}
					t.Cleanup(func() { _ = l.Release(t.Context()) })
					ls = append(ls, l)
				}
				r := runCLI(t, "", nil, args(b.flags, []string{"inspect", "--json", key})...)
				wantCode(t, r, exitOK)
				var got []keyState
				if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || len(got) != 1 {
					t.Fatalf("JSON %q: %v", r.stdout, err)
				}
				s := got[0]
				wantPermits := tc.permits
				if b.kind == "zookeeper" {
					wantPermits = 0 // Curator's layout does not store n
				}
				if s.Kind != tc.kind || s.Permits != wantPermits || len(s.Holders) != 2 {
					t.Fatalf("state %+v, want %s (permits %d) with 2 holders", s, tc.kind, wantPermits)
				}
				for _, l := range ls {
					i := slices.IndexFunc(s.Holders, func(h holderState) bool { return h.Owner == l.Owner() })
					switch {
					case i < 0:
						t.Errorf("holder %s not listed", l.Owner())
					case b.kind == "redis" && s.Holders[i].Token != nil:
						t.Errorf("holder %s: token %d, want null (Redis keeps no token for shares)", l.Owner(), *s.Holders[i].Token)
					case b.kind != "redis" && (s.Holders[i].Token == nil || *s.Holders[i].Token != l.Token()):
						t.Errorf("holder %s: token %v, want %d", l.Owner(), s.Holders[i].Token, l.Token())
					}
				}
				r = runCLI(t, "", nil, args(b.flags, []string{"inspect", key})...)
				want := []string{key, tc.kind}
				if wantPermits > 0 {
					want = append(want, "3")
				}
				want = append(want, "2")
				if got := row(r.stdout, key); !slices.Equal(got[:min(len(want), len(got))], want) {
					t.Errorf("row of %s = %q, want it to start with %q", key, got, want)
				}
			})
		}
	})
}
