package reliability

import (
	"cmp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestFence_rejectsLowerTokens(t *testing.T) {
	f := NewFence(t.TempDir())
	steps := []struct {
		token    int64
		accepted bool
		last     int64
	}{
		{5, true, 0}, {5, true, 5}, {4, false, 5}, {9, true, 5}, {1, false, 9},
	}
	for _, s := range steps {
		ok, last, err := f.Accept(s.token)
		if err != nil || ok != s.accepted || last != s.last {
			t.Fatalf("Accept(%d) = %v, %d, %v; want %v, %d", s.token, ok, last, err, s.accepted, s.last)
		}
	}
	st, err := f.State()
	if err != nil || st != (FenceState{Last: 9, Accepted: 3, Rejected: 2}) {
		t.Fatalf("State = %+v, %v", st, err)
	}
}

func TestFence_atomicAcrossGoroutines(t *testing.T) {
	f := NewFence(t.TempDir())
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 50 {
				if _, _, err := f.Accept(int64(g*1000 + i)); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	st, err := f.State()
	if err != nil || st.Accepted+st.Rejected != 400 || st.Last != 7049 {
		t.Fatalf("State = %+v, %v; want 400 calls and last 7049", st, err)
	}
}

func TestRecord(t *testing.T) {
	r := NewRecord(t.TempDir())
	if v, err := r.Read(); err != nil || v != 0 {
		t.Fatalf("missing record = %d, %v", v, err)
	}
	if err := r.Write(41, "a"); err != nil {
		t.Fatal(err)
	}
	if v, err := r.Read(); err != nil || v != 41 {
		t.Fatalf("Read = %d, %v", v, err)
	}
}

// writeRun logs intervals and sets the record and fence as a run would.
func writeRun(t *testing.T, ivs []Interval, record int64) string {
	t.Helper()
	dir := t.TempDir()
	logs := map[string]*Log{}
	f := NewFence(dir)
	for _, iv := range ivs {
		l := logs[iv.ID]
		if l == nil {
			var err error
			if l, err = CreateLog(dir, iv.ID); err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			logs[iv.ID] = l
		}
		ev := iv
		ev.Kind = KindAcquired
		ev.End = 0
		if err := l.Write(ev); err != nil {
			t.Fatal(err)
		}
		if iv.End == 0 {
			continue // never completed (killed)
		}
		iv.Kind = KindInterval
		if err := l.Write(iv); err != nil {
			t.Fatal(err)
		}
	}
	// Present the tokens to the fence in the order the holds ended.
	byEnd := slices.Clone(ivs)
	slices.SortFunc(byEnd, func(a, b Interval) int { return cmp.Compare(a.End, b.End) })
	for _, iv := range byEnd {
		if iv.End != 0 && (iv.Wrote || iv.Rejected) {
			if _, _, err := f.Accept(iv.Token); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := NewRecord(dir).Write(record, "t"); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestAnalyse(t *testing.T) {
	base := time.Now().UnixNano()
	at := func(ms int) int64 { return base + int64(ms)*int64(time.Millisecond) }
	tests := []struct {
		name      string
		ivs       []Interval
		record    int64
		opts      AnalyseOptions
		overlaps  int
		lost      int64
		violation string // substring of a violation; "" for none
	}{
		{
			name: "clean",
			ivs: []Interval{
				{ID: "a", Seq: 1, Token: 1, Start: at(0), End: at(10), Wrote: true},
				{ID: "b", Seq: 1, Token: 2, Start: at(11), End: at(20), Wrote: true},
			},
			record: 2,
		},
		{
			name: "overlap and lost update",
			ivs: []Interval{
				{ID: "a", Seq: 1, Token: 1, Start: at(0), End: at(10), Wrote: true},
				{ID: "b", Seq: 1, Token: 2, Start: at(5), End: at(20), Wrote: true},
			},
			record: 1, overlaps: 1, lost: 1, violation: "overlaps",
		},
		{
			name: "loss observed before the successor began",
			ivs: []Interval{
				{ID: "a", Seq: 1, Token: 1, Start: at(0), End: at(30), LostAt: at(8), Aborted: true},
				{ID: "b", Seq: 1, Token: 2, Start: at(10), End: at(20), Wrote: true},
			},
			record: 1,
		},
		{
			name: "paused holder rejected by the fence",
			ivs: []Interval{
				{ID: "a", Seq: 1, Token: 1, Start: at(0), End: at(30), LostAt: at(29), Rejected: true},
				{ID: "b", Seq: 1, Token: 2, Start: at(10), End: at(20), Wrote: true},
			},
			record: 1, overlaps: 1, opts: AnalyseOptions{AllowOverlap: true, AllowStale: true},
		},
		{
			name: "stale token without a fault",
			ivs: []Interval{
				{ID: "a", Seq: 1, Token: 2, Start: at(0), End: at(10), Wrote: true},
				{ID: "b", Seq: 1, Token: 1, Start: at(11), End: at(20), Rejected: true},
			},
			record: 1, violation: "stale tokens",
		},
		{
			name: "killed holder",
			ivs: []Interval{
				{ID: "dead", Seq: 1, Token: 1, Start: at(0)},
				{ID: "b", Seq: 1, Token: 2, Start: at(50), End: at(60), Wrote: true},
			},
			record: 1, opts: AnalyseOptions{Killed: map[string]time.Time{"dead": fromNS(at(40))}},
		},
		{
			name: "readers overlap readers",
			ivs: []Interval{
				{ID: "a", Seq: 1, Token: 1, Start: at(0), End: at(10), Shared: true},
				{ID: "b", Seq: 1, Token: 2, Start: at(5), End: at(20), Shared: true},
				{ID: "c", Seq: 1, Token: 3, Start: at(21), End: at(30), Wrote: true},
			},
			record: 1,
		},
		{
			name: "writer beside a reader",
			ivs: []Interval{
				{ID: "a", Seq: 1, Token: 1, Start: at(0), End: at(10), Shared: true},
				{ID: "b", Seq: 1, Token: 2, Start: at(5), End: at(20), Wrote: true},
				{ID: "c", Seq: 1, Token: 3, Start: at(15), End: at(25), Shared: true},
			},
			record: 1, overlaps: 2, violation: "overlaps",
		},
		{
			name: "permits within n",
			ivs: []Interval{
				{ID: "a", Seq: 1, Token: 1, Start: at(0), End: at(10), Permit: true},
				{ID: "b", Seq: 1, Token: 2, Start: at(5), End: at(20), Permit: true},
				{ID: "c", Seq: 1, Token: 3, Start: at(11), End: at(25), Permit: true},
			},
			opts: AnalyseOptions{Permits: 2},
		},
		{
			name: "more permits than n",
			ivs: []Interval{
				{ID: "a", Seq: 1, Token: 1, Start: at(0), End: at(10), Permit: true},
				{ID: "b", Seq: 1, Token: 2, Start: at(5), End: at(20), Permit: true},
				{ID: "c", Seq: 1, Token: 3, Start: at(8), End: at(25), Permit: true},
			},
			opts: AnalyseOptions{Permits: 2}, overlaps: 1, violation: "overlaps",
		},
		{
			name: "token regression on a mutex",
			ivs: []Interval{
				{ID: "a", Seq: 1, Token: 2, Start: at(0), End: at(10), Wrote: true},
				{ID: "b", Seq: 1, Token: 1, Start: at(11), End: at(20), Rejected: true},
			},
			record: 1, opts: AnalyseOptions{AllowStale: true}, violation: "token regressions",
		},
		{
			name: "token repeated on a mutex",
			ivs: []Interval{
				{ID: "a", Seq: 1, Token: 2, Start: at(0), End: at(10), Wrote: true},
				{ID: "b", Seq: 1, Token: 2, Start: at(11), End: at(20), Wrote: true},
			},
			record: 2, violation: "token regressions",
		},
		{
			name: "regression after a failover that lost writes",
			ivs: []Interval{
				{ID: "a", Seq: 1, Token: 2, Start: at(0), End: at(10), Wrote: true},
				{ID: "b", Seq: 1, Token: 1, Start: at(11), End: at(20), Rejected: true},
			},
			record: 1, opts: AnalyseOptions{AllowStale: true, AllowRegression: true},
		},
		{
			name: "a void hold is no regression",
			ivs: []Interval{
				{ID: "a", Seq: 1, Token: 2, Start: at(0), End: at(10), Wrote: true},
				{ID: "b", Seq: 1, Token: 1, Start: at(11), End: at(11), LostAt: at(11), Void: true, Aborted: true},
			},
			record: 1,
		},
		{
			name: "readers out of token order",
			ivs: []Interval{
				{ID: "a", Seq: 1, Token: 2, Start: at(0), End: at(10), Shared: true},
				{ID: "b", Seq: 1, Token: 1, Start: at(5), End: at(20), Shared: true},
				{ID: "c", Seq: 1, Token: 3, Start: at(21), End: at(30), Wrote: true},
			},
			record: 1,
		},
		{
			name: "holder vanished without a kill",
			ivs: []Interval{
				{ID: "a", Seq: 1, Token: 1, Start: at(0)},
			},
			violation: "never ended",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := Analyse(writeRun(t, tt.ivs, tt.record), tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if a.OverlapCount != tt.overlaps || a.LostUpdates != tt.lost {
				t.Errorf("overlaps %d lost %d, want %d and %d (%s)", a.OverlapCount, a.LostUpdates, tt.overlaps, tt.lost, a.Summary())
			}
			joined := strings.Join(a.Violations, "\n")
			if (tt.violation == "") != (joined == "") || !strings.Contains(joined, tt.violation) {
				t.Errorf("violations %q, want one containing %q", a.Violations, tt.violation)
			}
		})
	}
}
