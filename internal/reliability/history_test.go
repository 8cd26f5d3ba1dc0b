package reliability

import (
	"fmt"

	"github.com/anishathalye/porcupine"
)

// history maps the run in dir (its interval logs and record) to porcupine
// operations on the fenced register (register_test.go), with the holders'
// own wall-clock times (one machine's clock, comparable across its
// processes) as call and return times:
//
//   - a completed hold reads the record between Start (Lock returned) and
//     ReadAt (the read returned); it then presents its token, and writes
//     if accepted, between ReadAt and End; a hold that gave up on seeing
//     its lock lost, or a reader or permit holder, only reads;
//   - the hold of a process killed before it logged its interval is an
//     operation of unknown outcome, from Start to the kill (as in
//     [Analyse]); a reader's or permit's is left out, since it writes
//     nothing;
//   - the record's final value is read after every other operation,
//     unless the run used several keys (one record then stands for
//     several registers, and only each write's own check applies).
func history(dir string, o AnalyseOptions) ([]porcupine.Operation, error) {
	acquired, done, err := ReadLogs(dir)
	if err != nil {
		return nil, err
	}
	final, err := NewRecord(dir).Read()
	if err != nil {
		return nil, err
	}
	h := &historyBuilder{clients: map[string]int{}}
	type holdID struct {
		id     string
		g, seq int
	}
	completed := map[holdID]bool{}
	keys := map[string]bool{}
	for _, iv := range done {
		completed[holdID{iv.ID, iv.G, iv.Seq}] = true
		keys[iv.Key] = true
		h.hold(iv)
	}
	for _, ev := range acquired {
		killed, ok := o.Killed[ev.ID]
		if completed[holdID{ev.ID, ev.G, ev.Seq}] || !ok || ev.Shared || ev.Permit {
			continue // a hold that never ended unkilled is the analyser's violation
		}
		keys[ev.Key] = true
		h.add(ev, regInput{kind: opUnknown, token: ev.Token}, regOutput{}, ev.Start, ns(killed))
	}
	if len(keys) == 1 {
		for k := range keys {
			at := h.last + 1
			h.ops = append(h.ops, porcupine.Operation{ClientId: len(h.clients),
				Input: regInput{kind: opFinal, key: k}, Output: regOutput{value: final}, Call: at, Return: at})
		}
	}
	return h.ops, nil
}

// historyBuilder collects a history's operations.
type historyBuilder struct {
	ops     []porcupine.Operation
	clients map[string]int // holder goroutine → porcupine client id
	last    int64          // the latest return time
}

// hold adds the operations of a completed hold.
func (h *historyBuilder) hold(iv Interval) {
	readEnd := iv.ReadAt
	if readEnd == 0 {
		readEnd = iv.End
	}
	h.add(iv, regInput{kind: opRead}, regOutput{value: iv.Read}, iv.Start, readEnd)
	if iv.Wrote || iv.Rejected {
		h.add(iv, regInput{kind: opWrite, token: iv.Token, from: iv.Read}, regOutput{accepted: iv.Wrote}, readEnd, iv.End)
	}
}

// add adds one operation of the hold iv from call to ret.
func (h *historyBuilder) add(iv Interval, in regInput, out regOutput, call, ret int64) {
	g := fmt.Sprintf("%s g%d", iv.ID, iv.G)
	c, ok := h.clients[g]
	if !ok {
		c = len(h.clients)
		h.clients[g] = c
	}
	in.key = iv.Key
	in.who = fmt.Sprintf("%s #%d", g, iv.Seq)
	ret = max(ret, call)
	h.last = max(h.last, ret)
	h.ops = append(h.ops, porcupine.Operation{ClientId: c, Input: in, Output: out, Call: call, Return: ret})
}
