package reliability

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
)

// porcupineTimeout bounds one check of a history. Past it the verdict is
// "unknown", which is reported as such and never counted as a pass.
const porcupineTimeout = 30 * time.Second

// Verdicts of [linearizable].
const (
	verdictOK      = "ok"
	verdictIllegal = "illegal"
)

// linearizable checks the run in dir with porcupine against the fenced
// register (register_test.go): "ok", "illegal", or "unknown: ..." when the
// check did not finish within timeout. On "illegal" the longest partial
// linearization porcupine found is described too.
func linearizable(dir string, o AnalyseOptions, timeout time.Duration) (string, error) {
	ops, err := history(dir, o)
	if err != nil {
		return "", err
	}
	model := fencedRegister()
	res, info := porcupine.CheckOperationsVerbose(model, ops, timeout)
	switch res {
	case porcupine.Ok:
		return verdictOK, nil
	case porcupine.Illegal:
		return verdictIllegal + describeFailure(model, info), nil
	}
	return fmt.Sprintf("unknown: no verdict within %v on %d operations", timeout, len(ops)), nil
}

// describeFailure names the last operation of the longest partial
// linearization porcupine found in an illegal history: the history goes
// wrong right after it.
func describeFailure(model porcupine.Model, info porcupine.LinearizationInfo) string {
	var best []porcupine.Operation
	for _, part := range info.PartialLinearizationsOperations() {
		for _, lin := range part {
			if len(lin) > len(best) {
				best = lin
			}
		}
	}
	if len(best) == 0 {
		return ""
	}
	last := best[len(best)-1]
	return fmt.Sprintf(" (linearizable up to %d operations, the last: %s)", len(best), model.DescribeOperation(last.Input, last.Output))
}

// lostUpdate is the analyser's verdict on the safety the model checks: an
// update was lost (accepted writes exceed the record), or the record is
// ahead of the writes although no process was killed mid-write.
func lostUpdate(a Analysis, o AnalyseOptions) bool {
	return a.LostUpdates > 0 || a.LostUpdates < 0 && len(o.Killed) == 0
}

// agree checks the run in dir with porcupine, records the verdict in
// a.Linearizable and adds a violation when porcupine and the analyser
// disagree on whether the run lost an update: one of them is wrong. An
// unknown verdict is recorded, not counted as either.
func agree(dir string, o AnalyseOptions, a *Analysis) {
	v, err := linearizable(dir, o, porcupineTimeout)
	if err != nil {
		a.Linearizable = "error"
		a.Violations = append(a.Violations, fmt.Sprintf("porcupine: reading the history: %v", err))
		return
	}
	a.Linearizable = v
	ok, illegal := v == verdictOK, strings.HasPrefix(v, verdictIllegal)
	lost := lostUpdate(*a, o)
	if ok && lost || illegal && !lost {
		a.Violations = append(a.Violations, fmt.Sprintf(
			"the checkers disagree: porcupine finds the history %s, the analyser counts %d lost updates (record %d, %d accepted writes)",
			v, a.LostUpdates, a.Final, a.Writes))
	}
}

// lockcheckRun reports whether dir holds a run of lockcheck processes
// (their stderr logs are there), as opposed to a history made by hand for
// the analyser's own tests, whose reads need not be consistent.
func lockcheckRun(dir string) bool {
	m, _ := filepath.Glob(filepath.Join(dir, "stderr-*.log"))
	return len(m) > 0
}

// porcupineEverywhere reports whether every analysed history is checked
// by porcupine too: under make soak (LOCK4GO_SOAK=1), or when
// LOCK4GO_PORCUPINE=1 asks for it. Otherwise only
// TestLinearizable_realHistory runs it, on short runs.
func porcupineEverywhere() bool {
	return soak() || os.Getenv("LOCK4GO_PORCUPINE") == "1"
}

func init() {
	if porcupineEverywhere() {
		checkHistory = func(dir string, o AnalyseOptions, a *Analysis) {
			if lockcheckRun(dir) {
				agree(dir, o, a)
			}
		}
	}
}
