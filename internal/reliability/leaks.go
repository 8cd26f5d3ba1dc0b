package reliability

import "go.uber.org/goleak"

// FindLeaks returns a description of the goroutines still running besides
// the caller's, or "" when there are none. goleak retries for a while, so
// goroutines that are about to end are not reported.
func FindLeaks() string {
	if err := goleak.Find(); err != nil {
		return err.Error()
	}
	return ""
}
