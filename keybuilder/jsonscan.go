package keybuilder

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/keyexpr"
)

// maxJSONDepth is encoding/json's nesting limit: json.Valid refuses deeper
// documents, and so does the scanner.
const maxJSONDepth = 10000

var errNotJSON = fmt.Errorf("body is not JSON: %w", executor.ErrInvalidKey)

// jsonSeg is one segment of a json. path: a member name, the array index
// it also means when it reads as one (as strconv.Atoi reads it), and the
// integer it means as the key of a map[int]T.
type jsonSeg struct {
	name  []byte
	index int    // -1: not an index
	num   string // the integer in one form (keyexpr.IntPart), "" if none
}

func jsonSegs(path []string) []jsonSeg {
	segs := make([]jsonSeg, len(path))
	for i, p := range path {
		segs[i] = jsonSeg{name: []byte(p), index: -1}
		if n, err := strconv.Atoi(p); err == nil && n >= 0 {
			segs[i].index = n
		}
		segs[i].num, _ = keyexpr.IntPart(p)
	}
	return segs
}

// jsonFrame is an open object or array that the path goes through, or
// that is the value it leads to.
type jsonFrame struct {
	depth   int  // len(stack) while it is open
	target  bool // the value the path leads to (its span is the result)
	level   int  // else: the segment its members or elements match
	start   int  // of the target
	matches int  // members matching the segment, for objects
	elem    int  // index of the current element, for arrays
}

// jsonScanner finds the value at a path in one pass over a document,
// validating it as json.Valid does and building no values: it skips what
// it does not need at the cost of reading each byte once. Containers off
// the path cost one byte of stack each.
type jsonScanner struct {
	data    []byte
	i       int
	segs    []jsonSeg
	stack   []byte      // '[' or '{' per open container
	frames  []jsonFrame // of the open containers on the path
	scratch []byte      // unescaped member names

	found      bool
	start, end int
	ambiguous  error
}

// jsonFind returns the raw value at segs in data, nil when the path leads
// nowhere. An invalid document is errNotJSON; an object on the path with
// two members matching a segment (ignoring case, as encoding/json matches
// struct fields) is an error wrapping executor.ErrInvalidKey.
func jsonFind(data []byte, segs []jsonSeg) ([]byte, error) {
	s := jsonScanner{data: data, segs: segs}
	if !s.scan() {
		return nil, errNotJSON
	}
	if s.ambiguous != nil {
		return nil, s.ambiguous
	}
	if !s.found {
		return nil, nil
	}
	return data[s.start:s.end], nil
}

// scan runs the scanner over the whole document and reports whether it is
// valid JSON.
func (s *jsonScanner) scan() bool {
	onPath, level := true, 0 // where the next value stands on the path
	for {
		s.ws()
		afterValue := false
		if !onPath && len(s.stack) > 0 {
			var ok bool
			if afterValue, onPath, level, ok = s.skipScalars(); !ok {
				return false
			}
		}
		if !afterValue {
			opened, ok := s.value(onPath, level)
			if !ok {
				return false
			}
			if opened {
				// The first member or element, unless the container is empty.
				var closed bool
				if onPath, level, closed, ok = s.first(); !ok {
					return false
				}
				if !closed {
					continue
				}
			}
		}
		var done, ok bool
		if onPath, level, done, ok = s.next(); !ok {
			return false
		}
		if done {
			s.ws()
			return s.i == len(s.data)
		}
	}
}

// skipScalars scans, from a value off the path, the run of scalar values
// (and, in an object, member names) that follows: the arrays of numbers
// and objects of short members a body can be full of, in one loop. It
// stops at a value that is a container or on the path (afterValue false:
// the value is next, onPath and level say where it stands), or after a
// value not followed by a comma (afterValue true: a close or an error is
// next). In an object on the path it scans nothing: names must be matched.
func (s *jsonScanner) skipScalars() (afterValue, onPath bool, level int, ok bool) {
	array := s.stack[len(s.stack)-1] == '['
	f := s.onPath()
	if f != nil && f.target {
		f = nil
	}
	if f != nil && !array {
		return false, false, 0, true
	}
	d := s.data
	for {
		if s.i >= len(d) {
			return false, false, 0, false
		}
		if c := d[s.i]; c == '{' || c == '[' {
			return false, false, 0, true
		}
		if !s.scalar() {
			return false, false, 0, false
		}
		s.ws()
		if s.i >= len(d) || d[s.i] != ',' {
			return true, false, 0, true
		}
		s.i++
		s.ws()
		switch {
		case !array:
			if !s.name() {
				return false, false, 0, false
			}
		case f != nil:
			// An array on the path: count the element, stop at the one
			// the path takes.
			f.elem++
			if f.elem-1 == s.segs[f.level].index {
				return false, true, f.level + 1, true
			}
		}
	}
}

// scalar scans a string, number or literal.
func (s *jsonScanner) scalar() bool {
	switch s.data[s.i] {
	case '"':
		_, ok := s.str()
		return ok
	case 't':
		return s.literal("true")
	case 'f':
		return s.literal("false")
	case 'n':
		return s.literal("null")
	}
	return s.number()
}

// name scans a member name and its colon, and the whitespace after.
func (s *jsonScanner) name() bool {
	if s.i >= len(s.data) || s.data[s.i] != '"' {
		return false
	}
	if _, ok := s.str(); !ok {
		return false
	}
	s.ws()
	if s.i >= len(s.data) || s.data[s.i] != ':' {
		return false
	}
	s.i++
	s.ws()
	return true
}

// value scans one value: a scalar whole, or the opening of a container,
// which it pushes (opened). onPath and level say whether the value is the
// one segs[:level] lead to.
func (s *jsonScanner) value(onPath bool, level int) (opened, ok bool) {
	if s.i >= len(s.data) {
		return false, false
	}
	target := onPath && level == len(s.segs)
	start := s.i
	switch c := s.data[s.i]; c {
	case '{', '[':
		if len(s.stack) == maxJSONDepth {
			return false, false
		}
		s.i++
		s.stack = append(s.stack, c)
		if onPath {
			s.frames = append(s.frames, jsonFrame{depth: len(s.stack), target: target, level: level, start: start})
			return true, true
		}
		return true, s.openArrays()
	default:
		ok = s.scalar()
	}
	if ok && target {
		s.found, s.start, s.end = true, start, s.i
	}
	return false, ok
}

// openArrays pushes the run of arrays opened at once inside an array off
// the path ("[[[[…"): deep nesting in one loop. It stops at anything else,
// with the top container's first value next.
func (s *jsonScanner) openArrays() bool {
	for s.stack[len(s.stack)-1] == '[' {
		s.ws()
		if s.i >= len(s.data) || s.data[s.i] != '[' {
			return true
		}
		if len(s.stack) == maxJSONDepth {
			return false
		}
		s.i++
		s.stack = append(s.stack, '[')
	}
	return true
}

// first scans what follows the opening of the top container: its close
// (closed), or its first member up to the value, or the start of its first
// element.
func (s *jsonScanner) first() (onPath bool, level int, closed, ok bool) {
	s.ws()
	if s.i < len(s.data) && s.data[s.i] == closer(s.stack[len(s.stack)-1]) {
		s.i++
		s.pop()
		return false, 0, true, true
	}
	onPath, level, ok = s.member()
	return onPath, level, false, ok
}

// next scans what follows a value: closes of containers, then a comma and
// the next member up to its value, or the start of the next element. done
// means the document's value has ended.
func (s *jsonScanner) next() (onPath bool, level int, done, ok bool) {
	for len(s.stack) > 0 {
		s.ws()
		if s.i >= len(s.data) {
			return false, 0, false, false
		}
		c := s.data[s.i]
		s.i++
		switch c {
		case ',':
			s.ws()
			onPath, level, ok = s.member()
			return onPath, level, false, ok
		case closer(s.stack[len(s.stack)-1]):
			if len(s.frames) == 0 {
				s.stack = s.stack[:len(s.stack)-1] // off the path: nothing to record
				continue
			}
			s.pop()
		default:
			return false, 0, false, false
		}
	}
	return false, 0, true, true
}

func closer(open byte) byte {
	if open == '[' {
		return ']'
	}
	return '}'
}

// onPath returns the frame of the top container if it is on the path.
func (s *jsonScanner) onPath() *jsonFrame {
	if n := len(s.frames); n > 0 && s.frames[n-1].depth == len(s.stack) {
		return &s.frames[n-1]
	}
	return nil
}

// pop closes the top container, recording its span if it is the target.
func (s *jsonScanner) pop() {
	if f := s.onPath(); f != nil {
		if f.target {
			s.found, s.start, s.end = true, f.start, s.i
		}
		s.frames = s.frames[:len(s.frames)-1]
	}
	s.stack = s.stack[:len(s.stack)-1]
}

// member scans, in the top container, the next member up to its value
// (for an object) or counts the next element (for an array), and returns
// where that value stands on the path.
func (s *jsonScanner) member() (onPath bool, level int, ok bool) {
	f := s.onPath()
	if f != nil && f.target {
		f = nil // inside the target: nothing more to match
	}
	if s.stack[len(s.stack)-1] == '[' {
		if f == nil {
			return false, 0, true
		}
		onPath = f.elem == s.segs[f.level].index
		f.elem++
		return onPath, f.level + 1, true
	}
	if s.i >= len(s.data) || s.data[s.i] != '"' {
		return false, 0, false
	}
	start := s.i
	esc, ok := s.str()
	if !ok {
		return false, 0, false
	}
	name := s.data[start+1 : s.i-1]
	s.ws()
	if s.i >= len(s.data) || s.data[s.i] != ':' {
		return false, 0, false
	}
	s.i++
	if f == nil || !s.nameMatches(name, esc, &s.segs[f.level]) {
		return false, 0, true
	}
	f.matches++
	if f.matches > 1 && s.ambiguous == nil {
		s.ambiguous = fmt.Errorf("JSON object has %d or more members named %q (ignoring case, or as the same integer): ambiguous: %w",
			f.matches, s.segs[f.level].name, executor.ErrInvalidKey)
	}
	return true, f.level + 1, true
}

// nameMatches reports whether a decoder may take the member name raw
// (between its quotes, escaped if esc) for seg: equal ignoring case, as
// encoding/json matches struct fields (bytes.EqualFold on the unescaped
// name, as its foldName does), or, for a segment that is an integer, the
// same integer, as encoding/json reads the keys of a map[int]T ("07" and
// "+7" are 7, and the last of them wins).
func (s *jsonScanner) nameMatches(raw []byte, esc bool, seg *jsonSeg) bool {
	if !esc {
		// Invalid UTF-8 compares as U+FFFD, as in the unescaped name.
		if bytes.EqualFold(raw, seg.name) {
			return true
		}
		if seg.num == "" {
			return false
		}
		return sameInt(raw, seg.num)
	}
	s.scratch = unquote(s.scratch[:0], raw)
	return bytes.EqualFold(s.scratch, seg.name) || seg.num != "" && sameInt(s.scratch, seg.num)
}

// sameInt reports whether name reads as the integer num (in the form
// keyexpr.IntPart gives).
func sameInt(name []byte, num string) bool {
	if len(name) == 0 || !(name[0] >= '0' && name[0] <= '9' || name[0] == '+' || name[0] == '-') {
		return false
	}
	n, err := keyexpr.IntPart(string(name))
	return err == nil && n == num
}

// ws skips whitespace.
func (s *jsonScanner) ws() {
	if s.i < len(s.data) && s.data[s.i] > ' ' {
		return // the common case, inlined
	}
	s.skipWS()
}

func (s *jsonScanner) skipWS() {
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// literal scans the literal lit (true, false or null).
func (s *jsonScanner) literal(lit string) bool {
	if len(s.data)-s.i < len(lit) || string(s.data[s.i:s.i+len(lit)]) != lit {
		return false
	}
	s.i += len(lit)
	return true
}

// strPlain[c] is true for the bytes a string holds without ending or
// escaping: not '"', not '\\', not a control character.
var strPlain = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c >= 0x20 && c != '"' && c != '\\'
	}
	return t
}()

// str scans a string at s.i (its opening quote) and reports whether it
// has escapes.
func (s *jsonScanner) str() (esc, ok bool) {
	d := s.data
	i := s.i + 1
	for {
		for i < len(d) && strPlain[d[i]] {
			i++
		}
		if i >= len(d) {
			return false, false
		}
		switch d[i] {
		case '"':
			s.i = i + 1
			return esc, true
		case '\\':
			esc = true
			n := escLen(d[i:])
			if n == 0 {
				return false, false
			}
			i += n
		default: // a control character
			return false, false
		}
	}
}

// escLen returns the length of the valid escape sequence at the start of
// b (b[0] is '\\'), 0 if it is not one.
func escLen(b []byte) int {
	if len(b) < 2 {
		return 0
	}
	switch b[1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2
	case 'u':
		if len(b) < 6 {
			return 0
		}
		for _, c := range b[2:6] {
			if !isHex(c) {
				return 0
			}
		}
		return 6
	}
	return 0
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// number scans a number as JSON's grammar has it:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *jsonScanner) number() bool {
	d := s.data
	i := s.i
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && '1' <= d[i] && d[i] <= '9':
		i = digits(d, i)
	default:
		return false
	}
	if i < len(d) && d[i] == '.' {
		if j := digits(d, i+1); j > i+1 {
			i = j
		} else {
			return false
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		j := digits(d, i)
		if j == i {
			return false
		}
		i = j
	}
	s.i = i
	return true
}

// digits returns the index after the run of digits at i.
func digits(d []byte, i int) int {
	for i < len(d) && '0' <= d[i] && d[i] <= '9' {
		i++
	}
	return i
}
