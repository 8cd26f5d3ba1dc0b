package reliability

import (
	"fmt"

	"github.com/anishathalye/porcupine"
)

// The model porcupine checks a run's history against: a fenced lock
// guarding a register. The register is the run's record; the fence store
// stands in front of it. Its state is the record's value and the highest
// token the store has accepted:
//
//   - A read returns the value.
//   - A write presents a token and, when the store accepts it (the token is
//     not lower than any it accepted before), sets the value to what its
//     holder read plus one. The model accepts a write exactly when the
//     store must, and an accepted write only if its holder read the
//     current value: a holder whose read an accepted write has overtaken
//     is stale, and its write would lose that update.
//
// So a history is linearizable exactly when no accepted write came from a
// stale holder and every read saw the last accepted write: the safety the
// lock and its fencing tokens promise the resource. Mutual exclusion
// itself (overlapping holds that harmed nothing) is the analyser's to
// judge, not the model's.

// regState is the register's state: the record's value and the highest
// token the fence store accepted.
type regState struct {
	value, token int64
}

// opKind is the kind of an operation of a run's history.
type opKind int

const (
	// opRead is a holder's read of the record.
	opRead opKind = iota
	// opWrite is a holder presenting its token and, if the store accepts
	// it, writing the value it read plus one.
	opWrite
	// opUnknown is the hold of a killed process: it may have been
	// accepted and written, accepted only, or neither.
	opUnknown
	// opFinal is the read of the record after the run.
	opFinal
)

// regInput is an operation's input.
type regInput struct {
	kind  opKind
	key   string // the lock key: the history is partitioned by it
	token int64  // write, unknown: the holder's fencing token
	from  int64  // write: the value the holder read
	who   string // the holder, for descriptions
}

// regOutput is an operation's output.
type regOutput struct {
	value    int64 // read, final: the value read
	accepted bool  // write: the store accepted the token
}

// fencedRegister returns the model.
func fencedRegister() porcupine.Model {
	nm := &porcupine.NondeterministicModel{
		Partition: byKey,
		Init:      func() []any { return []any{regState{}} },
		Step:      step,
		Hash: func(s any) uint64 {
			st := s.(regState)
			return uint64(st.value)*0x9e3779b97f4a7c15 ^ uint64(st.token)
		},
		DescribeOperation: describeOp,
		DescribeState: func(s any) string {
			st := s.(regState)
			return fmt.Sprintf("record %d, fence %d", st.value, st.token)
		},
	}
	return nm.ToModel()
}

// step returns the states the register can be in after op (in, out) from
// state s: none when the operation is impossible there.
func step(state, input, output any) []any {
	s, in, out := state.(regState), input.(regInput), output.(regOutput)
	switch in.kind {
	case opRead, opFinal:
		if out.value == s.value {
			return []any{s}
		}
	case opWrite:
		fresh := in.token >= s.token
		switch {
		case out.accepted != fresh:
		case !fresh:
			return []any{s}
		case in.from == s.value:
			return []any{regState{value: in.from + 1, token: in.token}}
		}
	case opUnknown:
		next := []any{s}
		if in.token >= s.token {
			next = append(next, regState{value: s.value, token: in.token}, regState{value: s.value + 1, token: in.token})
		}
		return next
	}
	return nil
}

// byKey partitions a history by lock key: holds of different keys guard
// different registers.
func byKey(ops []porcupine.Operation) [][]porcupine.Operation {
	var keys []string
	parts := map[string][]porcupine.Operation{}
	for _, op := range ops {
		k := op.Input.(regInput).key
		if _, ok := parts[k]; !ok {
			keys = append(keys, k)
		}
		parts[k] = append(parts[k], op)
	}
	out := make([][]porcupine.Operation, 0, len(keys))
	for _, k := range keys {
		out = append(out, parts[k])
	}
	return out
}

// describeOp describes an operation for porcupine's visualisation.
func describeOp(input, output any) string {
	in, out := input.(regInput), output.(regOutput)
	switch in.kind {
	case opRead:
		return fmt.Sprintf("%s read %d", in.who, out.value)
	case opWrite:
		verdict := "rejected"
		if out.accepted {
			verdict = fmt.Sprintf("accepted, wrote %d", in.from+1)
		}
		return fmt.Sprintf("%s token %d: %s", in.who, in.token, verdict)
	case opUnknown:
		return fmt.Sprintf("%s token %d: killed, outcome unknown", in.who, in.token)
	}
	return fmt.Sprintf("final record %d", out.value)
}
