package reliability

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/lock4go/lock4go/internal/testserver"
)

// TestFencedRegister_step checks the model porcupine uses, one step at a
// time.
func TestFencedRegister_step(t *testing.T) {
	s := regState{value: 3, token: 7}
	tests := []struct {
		name string
		in   regInput
		out  regOutput
		want []regState // nil: impossible
	}{
		{"read of the value", regInput{kind: opRead}, regOutput{value: 3}, []regState{s}},
		{"read of another value", regInput{kind: opRead}, regOutput{value: 2}, nil},
		{"accepted write of a fresh holder", regInput{kind: opWrite, token: 8, from: 3}, regOutput{accepted: true}, []regState{{4, 8}}},
		{"accepted write, equal token", regInput{kind: opWrite, token: 7, from: 3}, regOutput{accepted: true}, []regState{{4, 7}}},
		{"accepted write that loses an update", regInput{kind: opWrite, token: 8, from: 2}, regOutput{accepted: true}, nil},
		{"accepted lower token", regInput{kind: opWrite, token: 6, from: 3}, regOutput{accepted: true}, nil},
		{"rejected lower token", regInput{kind: opWrite, token: 6, from: 1}, regOutput{}, []regState{s}},
		{"rejected fresh token", regInput{kind: opWrite, token: 8, from: 3}, regOutput{}, nil},
		{"killed fresh holder", regInput{kind: opUnknown, token: 8}, regOutput{}, []regState{s, {3, 8}, {4, 8}}},
		{"killed stale holder", regInput{kind: opUnknown, token: 6}, regOutput{}, []regState{s}},
		{"final value", regInput{kind: opFinal}, regOutput{value: 3}, []regState{s}},
		{"final value differs", regInput{kind: opFinal}, regOutput{value: 4}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := step(s, tt.in, tt.out)
			if len(got) != len(tt.want) {
				t.Fatalf("step = %v, want %v", got, tt.want)
			}
			for i, g := range got {
				if g.(regState) != tt.want[i] {
					t.Fatalf("step = %v, want %v", got, tt.want)
				}
			}
		})
	}
}

// TestLinearizable_agrees runs porcupine and the analyser on histories
// made by hand: both must judge alike whether an update was lost.
func TestLinearizable_agrees(t *testing.T) {
	base := time.Now().UnixNano()
	at := func(ms int) int64 { return base + int64(ms)*int64(time.Millisecond) }
	tests := []struct {
		name    string
		ivs     []Interval
		record  int64
		opts    AnalyseOptions
		illegal bool
	}{
		{
			name: "good",
			ivs: []Interval{
				{ID: "a", Seq: 1, Token: 1, Start: at(0), Read: 0, ReadAt: at(1), End: at(10), Wrote: true},
				{ID: "b", Seq: 1, Token: 2, Start: at(11), Read: 1, ReadAt: at(12), End: at(20), Wrote: true},
			},
			record: 2,
		},
		{
			name: "overlap the fence caught",
			ivs: []Interval{
				{ID: "a", Seq: 1, Token: 1, Start: at(0), Read: 0, ReadAt: at(1), End: at(30), LostAt: at(29), Rejected: true},
				{ID: "b", Seq: 1, Token: 2, Start: at(10), Read: 0, ReadAt: at(11), End: at(20), Wrote: true},
			},
			record: 1, opts: AnalyseOptions{AllowOverlap: true, AllowStale: true},
		},
		{
			name: "lost update",
			ivs: []Interval{
				{ID: "a", Seq: 1, Token: 1, Start: at(0), Read: 0, ReadAt: at(1), End: at(10), Wrote: true},
				{ID: "b", Seq: 1, Token: 2, Start: at(5), Read: 0, ReadAt: at(6), End: at(20), Wrote: true},
			},
			record: 1, illegal: true,
		},
		{
			name: "stale holder wrote before its successor presented its token",
			ivs: []Interval{
				{ID: "a", Seq: 1, Token: 1, Start: at(0), Read: 0, ReadAt: at(1), End: at(40), LostAt: at(39), Wrote: true},
				{ID: "b", Seq: 1, Token: 2, Start: at(10), Read: 0, ReadAt: at(11), End: at(50), Wrote: true},
			},
			record: 1, opts: AnalyseOptions{AllowOverlap: true, AllowStale: true}, illegal: true,
		},
		{
			name: "killed holder that wrote",
			ivs: []Interval{
				{ID: "dead", Seq: 1, Token: 1, Start: at(0)},
				{ID: "b", Seq: 1, Token: 2, Start: at(50), Read: 1, ReadAt: at(51), End: at(60), Wrote: true},
			},
			record: 2, opts: AnalyseOptions{Killed: map[string]time.Time{"dead": fromNS(at(40))}},
		},
		{
			name: "writer beside readers",
			ivs: []Interval{
				{ID: "a", Seq: 1, Token: 1, Start: at(0), Read: 0, ReadAt: at(1), End: at(10), Shared: true},
				{ID: "b", Seq: 1, Token: 2, Start: at(5), Read: 0, ReadAt: at(6), End: at(20), Wrote: true},
				{ID: "c", Seq: 1, Token: 3, Start: at(15), Read: 1, ReadAt: at(16), End: at(25), Shared: true},
			},
			record: 1, opts: AnalyseOptions{AllowOverlap: true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for i := range tt.ivs {
				tt.ivs[i].Key = "k"
			}
			dir := writeRun(t, tt.ivs, tt.record)
			a, err := Analyse(dir, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			before := len(a.Violations)
			if a.Linearizable == "" { // not already checked by the hook
				agree(dir, tt.opts, &a)
			}
			for _, v := range a.Violations[before:] {
				t.Errorf("%s", v)
			}
			if illegal := strings.HasPrefix(a.Linearizable, verdictIllegal); illegal != tt.illegal || lostUpdate(a, tt.opts) != tt.illegal {
				t.Errorf("porcupine %q, analyser lost updates %d; want both to find a lost update: %v", a.Linearizable, a.LostUpdates, tt.illegal)
			}
			t.Logf("%s", a.Summary())
		})
	}
}

// TestLinearizable_realHistory checks short histories recorded by real
// lockcheck processes with both checkers: a correct lock on Redis and on
// MySQL (both must pass them), and the memory executor across processes, which locks
// nothing between them (both must judge alike whether it lost an update).
// Under make soak every history the suite analyses is checked this way.
func TestLinearizable_realHistory(t *testing.T) {
	for _, e := range envs() {
		if e.kind != Redis && e.kind != MySQL {
			continue
		}
		t.Run(e.kind, func(t *testing.T) {
			testserver.Check(t, e.err)
			s := newSpace(e)
			r := newRun(t, s.backend(), s.key("porcupine"), time.Second)
			for i := range 2 {
				r.start(t, fmt.Sprint("p", i), "--acquisitions", "30", "--goroutines", "2", "--hold", "2ms")
			}
			r.waitAll(t, time.Minute)
			a := r.analyse(t, AnalyseOptions{})
			if a.Linearizable == "" {
				agree(r.dir, AnalyseOptions{}, &a)
			}
			if a.Linearizable != verdictOK {
				t.Errorf("porcupine: %s; violations %q", a.Linearizable, a.Violations)
			}
			t.Logf("%s", a.Summary())
		})
	}
	t.Run("memory", func(t *testing.T) {
		r := newRun(t, Backend{Kind: Memory}, "porcupine", time.Second)
		for i := range 3 {
			r.start(t, fmt.Sprint("p", i), "--acquisitions", "20", "--goroutines", "2", "--hold", "5ms")
		}
		r.waitAll(t, time.Minute)
		a, err := Analyse(r.dir, AnalyseOptions{})
		if err != nil {
			t.Fatal(err)
		}
		before := len(a.Violations)
		if a.Linearizable == "" {
			agree(r.dir, AnalyseOptions{}, &a)
		}
		for _, v := range a.Violations[before:] {
			if strings.Contains(v, "disagree") || strings.Contains(v, "porcupine") {
				t.Error(v)
			}
		}
		t.Logf("no distributed lock: %s", a.Summary())
	})
}
