package kit

import "time"

// Backoff is a pause that doubles after each retry, from Min up to Max.
type Backoff struct {
	Min, Max time.Duration
	cur      time.Duration
}

// Next returns the pause before the next retry and doubles the one after.
func (b *Backoff) Next() time.Duration {
	if b.cur < b.Min {
		b.cur = b.Min
	}
	d := b.cur
	b.cur = min(2*b.cur, b.Max)
	return d
}

// Reset starts the pauses over from Min, after a success.
func (b *Backoff) Reset() { b.cur = 0 }

// Wait pauses for Next, or until done is closed; it reports false when
// done ended the pause.
func (b *Backoff) Wait(done <-chan struct{}) bool {
	t := time.NewTimer(b.Next())
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-done:
		return false
	}
}
