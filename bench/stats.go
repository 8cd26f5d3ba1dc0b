package bench

import (
	"slices"
	"time"
)

// Dist summarises a sample of durations.
type Dist struct {
	N             int
	P50, P99, Max time.Duration
}

// distOf summarises d; it sorts d in place.
func distOf(d []time.Duration) Dist {
	if len(d) == 0 {
		return Dist{}
	}
	slices.Sort(d)
	return Dist{N: len(d), P50: quantile(d, 0.50), P99: quantile(d, 0.99), Max: d[len(d)-1]}
}

// quantile returns the q-quantile of sorted d (nearest rank).
func quantile(sorted []time.Duration, q float64) time.Duration {
	i := int(q*float64(len(sorted))+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// sum returns the total of ds.
func sum(ds []time.Duration) time.Duration {
	var t time.Duration
	for _, d := range ds {
		t += d
	}
	return t
}
