package lifecycle

// Closed reports whether ch is closed (or holds a value), without
// waiting; a nil ch never is. Executors test their done channel with it.
func Closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// Fired returns a channel that is ready at once: the watch
// (WatchRelease) of a closed executor.
func Fired() <-chan struct{} {
	ch := make(chan struct{}, 1)
	ch <- struct{}{}
	return ch
}
