package executor

// LostCauser is implemented by leases that can tell why they were lost:
// the Template wraps the cause into the error of the lost lock
// ([ErrLockLost] and the cause), so that a holder can tell an executor
// closed under it ([ErrClosed]) from a session that expired.
type LostCauser interface {
	// LostCause returns why the lease was lost, or nil while it is not
	// known to be lost.
	LostCause() error
}

// LostCause returns why l was lost, if l is a [LostCauser] that knows;
// nil otherwise.
func LostCause(l Lease) error {
	if c, ok := l.(LostCauser); ok {
		return c.LostCause()
	}
	return nil
}
