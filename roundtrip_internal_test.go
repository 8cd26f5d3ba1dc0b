package lock4go

import (
	"errors"
	"testing"
	"time"
)

// Every latency falls in a bucket whose bounds contain it, buckets grow
// with the latency, and no bucket is wider than a fifth of its low bound
// past the linear range.
func TestRTBucket_bounds(t *testing.T) {
	prev := 0
	for d := time.Duration(0); d < 3*time.Hour; d = d*11/10 + 7 {
		b := rtBucket(d)
		if b < prev {
			t.Fatalf("bucket(%v) = %d, below bucket %d of a shorter latency", d, b, prev)
		}
		prev = b
		lo, width := rtBucketBounds(b)
		v := uint64(d) >> rtUnitShift
		if b < rtBuckets-1 && (v < lo || v >= lo+width) {
			t.Fatalf("%v (%d units) in bucket %d = [%d, %d)", d, v, b, lo, lo+width)
		}
		if b >= 4 && float64(width) > 0.25*float64(lo) {
			t.Fatalf("bucket %d = [%d, +%d) wider than 25%% of its low bound", b, lo, width)
		}
	}
}

func TestExecStats_summary(t *testing.T) {
	var s execStats
	now := time.Unix(1_700_000_000, 0)
	old := now.Add(-2 * time.Minute)
	s.record(old, time.Hour, nil) // outside the last minute
	for i := range 100 {
		d := time.Millisecond
		if i == 99 {
			d = 50 * time.Millisecond
		}
		s.record(now.Add(-time.Duration(i)*500*time.Millisecond), d, nil)
	}
	boom := errors.New("boom")
	s.fail(now.Add(-time.Second), boom)
	sum := s.summary(now)
	if sum.n != 100 || sum.errs != 1 || sum.errorsOverall != 1 || sum.lastErr != boom {
		t.Fatalf("summary = %+v, want 100 round trips and 1 error", sum)
	}
	if !within(sum.p50, time.Millisecond, 0.2) || !within(sum.p99, time.Millisecond, 0.2) {
		t.Fatalf("p50 %v, p99 %v; want 1ms (99 of 100 samples)", sum.p50, sum.p99)
	}
	if sum.failing {
		t.Fatal("failing after a later successful round trip")
	}
	s.record(now, 50*time.Millisecond, nil)
	s.record(now, 50*time.Millisecond, boom)
	sum = s.summary(now)
	if !within(sum.p99, 50*time.Millisecond, 0.2) || !sum.failing {
		t.Fatalf("p99 %v failing %v; want 50ms and failing", sum.p99, sum.failing)
	}
	if got := s.summary(now.Add(2 * time.Minute)); got.n != 0 || got.errs != 0 || got.errorsOverall != 2 {
		t.Fatalf("two minutes later: %+v, want an empty minute and 2 errors overall", got)
	}
}

func within(got, want time.Duration, frac float64) bool {
	diff := float64(got - want)
	return diff <= frac*float64(want) && -diff <= frac*float64(want)
}

// Recording a round trip allocates nothing.
func TestExecStats_recordAllocs(t *testing.T) {
	var s execStats
	now := time.Now()
	err := errors.New("x")
	if n := testing.AllocsPerRun(100, func() {
		s.record(now, time.Millisecond, nil)
		s.record(now, time.Millisecond, err)
	}); n != 0 {
		t.Fatalf("%v allocations per record", n)
	}
	var l failureLog
	if n := testing.AllocsPerRun(100, func() { l.add(FailureLost, "e", "k", err) }); n != 0 {
		t.Fatalf("%v allocations per failure", n)
	}
}
