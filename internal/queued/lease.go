package queued

import (
	"time"

	"github.com/lock4go/lock4go/internal/leases"
)

// Base is what the lease of a queued executor is made of, beside its
// executor: its key and owner, the fencing token its acquire statement
// drew, when that statement was sent, and its loss. Embed it (a value,
// set up with [Base.Init]) in the executor's lease type: its methods give
// the lease Key and Loss ([Lease]), and Token, Start, AfterLost and
// LostCause ([executor.Lease], [executor.LostCauser]). Its fields are
// written before the lease is handed out, then only read; the loss is safe
// for concurrent use.
type Base struct {
	key   string
	owner string
	token int64
	start time.Time
	loss  leases.Loss // set by Close: the backend never reports a loss by itself
}

// Init sets up the lease of an attempt of owner on key, as it is made.
func (b *Base) Init(key, owner string) { b.key, b.owner = key, owner }

// Sent records that the acquire statement is sent now: the lease runs
// from when the statement ran, and waiting for a connection must not eat
// it.
func (b *Base) Sent() { b.start = time.Now() }

// Took records the token the acquire statement drew.
func (b *Base) Took(token int64) { b.token = token }

// Key returns the lock key.
func (b *Base) Key() string { return b.key }

// Owner returns the owner value of the attempt.
func (b *Base) Owner() string { return b.owner }

// Loss returns the lease's loss, which Close marks.
func (b *Base) Loss() *leases.Loss { return &b.loss }

// Token returns the fencing token the acquire statement drew.
func (b *Base) Token() int64 { return b.token }

// Start returns a time before the acquire statement was sent: the lease
// runs from when the statement ran, by the backend's clock.
func (b *Base) Start() time.Time { return b.start }

// AfterLost implements executor.Lease: the backend never reports a lost
// lease by itself, so f runs only when Close ends the lease; the
// Template's renewals find the other losses.
func (b *Base) AfterLost(f func()) (stop func() bool) { return b.loss.After(f) }

// LostCause implements executor.LostCauser: a cause wrapping
// executor.ErrClosed once Close ended the lease, nil before.
func (b *Base) LostCause() error { return b.loss.Cause() }
