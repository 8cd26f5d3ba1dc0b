// Package testwait waits, in tests, for a condition that no channel or
// callback announces: it asks the condition again and again until it holds
// or a time bound passes. Where the code under test signals the event, a
// test waits for the signal instead.
//
// Every lock4go package polls through this package, with one behaviour:
// the condition is asked at once, then every step, and once more after the
// bound has passed, so that a machine too busy to wake the poller on time
// does not turn a condition that held into a failure.
package testwait
