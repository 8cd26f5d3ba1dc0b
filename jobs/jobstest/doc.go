// Package jobstest is the conformance suite of scheduled jobs: the
// portable cases of ShedLock's own test support (no second lock while
// held, free after at-most-for, relock after unlock, at-least-for
// honoured, a release refused after expiry, a fuzz test), run through
// [jobs.Runner] over a Template of the executor under test. Every
// executor's job locks pass it; a new executor runs it from its tests.
package jobstest
