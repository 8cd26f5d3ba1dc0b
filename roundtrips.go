package lock4go

import (
	"errors"
	"math/bits"
	"sync"
	"time"

	"github.com/lock4go/lock4go/executor"
)

// Each executor's round trips, counted for [Template.Snapshot]: answers as
// round trips with their latency in a histogram per period, backend
// errors as errors.

// countAttempt counts an attempt of a that ended at end after d with err in its executor's statistics: an answer (a grant, a
// busy key) as a round trip, a backend error (or no answer within the
// grace) as an error. An attempt the caller gave up on or that was refused
// says nothing of the backend, and one that may have waited in the
// executor's queue is no latency sample.
func (t *Template) countAttempt(a *acquisition, end time.Time, d time.Duration, err error) {
	r, sample := a.r, a.r.samples(&a.req)
	switch {
	case err == nil, errors.Is(err, ErrNotAcquired) && !a.b.graceEnded() && a.b.parent.Err() == nil:
		if sample {
			r.stats.record(end, d, nil)
		}
	case a.b.parent.Err() != nil, errors.Is(err, ErrInvalidConfig), errors.Is(err, ErrInvalidKey):
	case sample:
		r.stats.record(end, d, err)
	default:
		r.stats.fail(end, err)
	}
}

// samples reports whether an attempt of req on r is one round trip, and
// so a sample of the backend's latency: not when the executor may have
// waited in its queue inside it (WaitInAcquire and req.Wait), which says
// nothing of the backend. In-process executors' attempts are counted all
// the same, never timed (see clock).
func (r *registered) samples(req *executor.Request) bool {
	return r.wait != executor.WaitInAcquire || !req.Wait || r.caps.InProcess
}

// elapsed returns the round trip on r from sent to end, or zero for an
// in-process executor, whose calls are counted but not timed: they cost
// less than reading the clock.
func (r *registered) elapsed(sent, end time.Time) time.Duration {
	if r.caps.InProcess {
		return 0
	}
	return end.Sub(sent)
}

// execStats counts one executor's round trips (acquire attempts, renewal
// batches, releases) and backend errors over the last minute: a latency
// histogram per five-second period in a fixed ring, under a mutex. Recording
// allocates nothing and takes the mutex once.
type execStats struct {
	mu        sync.Mutex
	periods   [rtPeriods]rtPeriod
	last      time.Time // end of the latest round trip
	failing   bool      // the latest round trip failed
	lastErr   error
	lastErrAt time.Time
	errors    int64 // since the Template was created
}

const (
	rtPeriodLen = 5 * time.Second
	rtPeriods   = 12 // one minute
	// Latencies are counted in units of 64 ns, in buckets four to an
	// octave (at most 19% wide), up to about two hours.
	rtUnitShift = 6
	rtBuckets   = 144
)

// rtPeriod is the histogram of one period.
type rtPeriod struct {
	epoch  int64 // start of the period, in periods since the Unix epoch
	n      uint32
	errs   uint32
	counts [rtBuckets]uint32
}

// record counts a round trip that ended at end and took d; err is the
// backend error it ended with, nil when the backend answered (a grant, a
// busy key, a release).
func (s *execStats) record(end time.Time, d time.Duration, err error) {
	epoch := end.UnixNano() / int64(rtPeriodLen)
	b := rtBucket(d)
	s.mu.Lock()
	p := s.period(epoch)
	p.n++
	p.counts[b]++
	if !end.Before(s.last) {
		s.last = end
		s.failing = err != nil
	}
	if err != nil {
		p.errs++
		s.errors++
		s.lastErr, s.lastErrAt = err, end
	}
	s.mu.Unlock()
}

// fail counts a backend error that ended at end without a latency sample:
// an attempt that may also have waited in the executor's queue.
func (s *execStats) fail(end time.Time, err error) {
	s.mu.Lock()
	epoch := end.UnixNano() / int64(rtPeriodLen)
	p := s.period(epoch)
	p.errs++
	s.errors++
	s.lastErr, s.lastErrAt = err, end
	if !end.Before(s.last) {
		s.last, s.failing = end, true
	}
	s.mu.Unlock()
}

// period returns the period of epoch, emptied if it held an older one. The
// caller holds s.mu.
func (s *execStats) period(epoch int64) *rtPeriod {
	p := &s.periods[epoch%rtPeriods]
	if p.epoch != epoch {
		p.epoch, p.n, p.errs = epoch, 0, 0
		clear(p.counts[:])
	}
	return p
}

// rtSummary is what execStats tells of the last minute.
type rtSummary struct {
	n, errs       int
	p50, p99      time.Duration
	last          time.Time
	failing       bool
	lastErr       error
	lastErrAt     time.Time
	errorsOverall int64
}

// summary merges the periods of the minute before now.
func (s *execStats) summary(now time.Time) rtSummary {
	var counts [rtBuckets]uint32
	epoch := now.UnixNano() / int64(rtPeriodLen)
	s.mu.Lock()
	sum := rtSummary{last: s.last, failing: s.failing, lastErr: s.lastErr, lastErrAt: s.lastErrAt, errorsOverall: s.errors}
	for i := range s.periods {
		p := &s.periods[i]
		if p.epoch <= epoch-rtPeriods || p.epoch > epoch {
			continue
		}
		sum.n += int(p.n)
		sum.errs += int(p.errs)
		for b, c := range p.counts {
			counts[b] += c
		}
	}
	s.mu.Unlock()
	sum.p50 = rtQuantile(&counts, sum.n, 50)
	sum.p99 = rtQuantile(&counts, sum.n, 99)
	return sum
}

// rtQuantile returns the pct-th percentile of n samples counted in counts,
// as the middle of its bucket.
func rtQuantile(counts *[rtBuckets]uint32, n, pct int) time.Duration {
	if n == 0 {
		return 0
	}
	rank := (n*pct + 99) / 100 // the smallest sample with at least pct% at or below it
	seen := 0
	for b, c := range counts {
		seen += int(c)
		if seen >= rank {
			lo, width := rtBucketBounds(b)
			return time.Duration((lo + width/2) << rtUnitShift)
		}
	}
	return 0
}

// rtBucket maps a latency to its bucket: linear below four units, then
// four buckets an octave.
func rtBucket(d time.Duration) int {
	v := uint64(max(d, 0)) >> rtUnitShift
	if v < 4 {
		return int(v)
	}
	o := bits.Len64(v) - 1 // v's octave, at least 2
	b := (o-1)*4 + int(v>>(o-2)&3)
	return min(b, rtBuckets-1)
}

// rtBucketBounds returns the lowest value of bucket b and its width, in
// units.
func rtBucketBounds(b int) (lo, width uint64) {
	if b < 4 {
		return uint64(b), 1
	}
	o := b/4 + 1
	width = 1 << (o - 2)
	return uint64(4+b%4) * width, width
}
