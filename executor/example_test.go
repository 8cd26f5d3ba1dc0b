package executor_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/lock4go/lock4go/executor"
)

// An executor checks every request at the start of Acquire, before any
// round trip, against its own capabilities: here a lease shorter than the
// shortest any executor grants.
func ExampleRequest_ValidateFor() {
	req := executor.Request{Key: "order:42", Owner: "a1b2", TTL: 500 * time.Microsecond}
	err := req.ValidateFor(executor.Capabilities{Wait: executor.WaitQueued})
	fmt.Println(errors.Is(err, executor.ErrInvalidConfig))
	fmt.Println(err)
	// Output:
	// true
	// "order:42": a lease of 500µs is shorter than the executor's shortest, 1ms: lock4go: invalid configuration
}
