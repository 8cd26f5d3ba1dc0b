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

// LossListener is told of the loss of a lease it was registered with
// through [LossNotifier].
type LossListener interface {
	// LeaseLost is called once, as the function of [Lease.AfterLost] is.
	LeaseLost()
}

// LossNotifier is implemented by leases that register a [LossListener]
// the way [Lease.AfterLost] registers a function, but without allocating:
// AfterLost costs the caller a function value and the lease a stop
// function per registration. The Template registers its lock this way
// when the lease offers it.
type LossNotifier interface {
	// NotifyLost registers ln: ln.LeaseLost runs once, in a goroutine of
	// its own or of the executor's, when the executor learns by itself
	// that the lease is gone, as AfterLost's function would. It returns
	// the id to stop it with. When the lease is lost already it registers
	// nothing and reports ok false: the caller acts on the loss itself.
	NotifyLost(ln LossListener) (id uint64, ok bool)
	// StopNotify unregisters the listener registered under id and reports
	// whether it did so before LeaseLost started, as AfterLost's stop does.
	StopNotify(id uint64) bool
}
