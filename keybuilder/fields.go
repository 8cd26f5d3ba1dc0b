package keybuilder

import (
	"encoding"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/lock4go/lock4go/executor"
)

// Fields returns a function that builds the key of a value of type Req from
// its fields: <prefix>:<name>#<part1>:<part2>…, each part the value of one
// field path, escaped and hashed as [Join] and the HTTP and gRPC builders
// do, so the same values give the same key whichever builds it. Use it
// with lock4go.Locked, the decorator for any function:
//
//	key, err := keybuilder.Fields[ChargeRequest]("lock4go", "charge", []string{"Order.ID"})
//	charge := lock4go.Locked(tpl, key, svc.Charge)
//
// A path is Go field names separated by dots ("Order.ID"), walked through
// structs and pointers to structs (Req may itself be a pointer); promoted
// fields of embedded structs count. The leaf must be a string, bool,
// integer, float or []byte (or a named type of one), or implement
// encoding.TextMarshaler or fmt.Stringer (checked in that order). Paths are
// parsed and checked against Req once, here: an unknown, unexported,
// ambiguous or non-scalar field is an error wrapping
// executor.ErrInvalidConfig, as is an empty name. No paths make one key for
// every value.
//
// The returned function is safe for concurrent use. A nil pointer on a
// path, an empty part or a float that is NaN or infinite is an error
// wrapping executor.ErrInvalidKey naming the path (a request without a key).
// Floats are keyed by value (1.50 and 1.5 alike, -0 as 0), as "|float"
// expressions are. Of the options only [WithMaxKeyLen] applies.
func Fields[Req any](prefix, name string, paths []string, opts ...Option) (func(Req) (string, error), error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	if name == "" {
		return nil, fmt.Errorf("keybuilder: Fields needs a name: %w", executor.ErrInvalidConfig)
	}
	if err := checkName(prefix, name, o.maxKeyLen); err != nil {
		return nil, err
	}
	t := reflect.TypeFor[Req]()
	fields := make([]fieldPath, len(paths))
	for i, p := range paths {
		if fields[i], err = compileField(t, p); err != nil {
			return nil, err
		}
	}
	maxLen := o.maxKeyLen
	return func(req Req) (string, error) {
		var buf [8]string
		parts := buf[:0]
		v := reflect.ValueOf(&req).Elem()
		for i := range fields {
			s, err := fields[i].value(v)
			if err != nil {
				return "", err
			}
			parts = append(parts, s)
		}
		return join(prefix, name, parts, maxLen)
	}, nil
}

// leafKind is how a field path's leaf is formatted.
type leafKind uint8

const (
	leafString leafKind = iota
	leafBytes
	leafBool
	leafInt
	leafUint
	leafFloat
	leafText     // encoding.TextMarshaler
	leafStringer // fmt.Stringer
)

// fieldPath is a compiled path: the field indexes to follow, with the
// pointers to dereference on the way, and how to format the leaf.
type fieldPath struct {
	src   string
	steps []fieldStep
	leaf  leafKind
	bits  int  // of a float leaf
	addr  bool // the leaf's pointer implements the interface, not the leaf
	deref bool // the leaf itself is a pointer to dereference first
}

type fieldStep struct {
	ptrs  int // pointers to dereference before taking the field
	index []int
}

var (
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
	stringer      = reflect.TypeFor[fmt.Stringer]()
)

// compileField checks path against t and compiles it.
func compileField(t reflect.Type, path string) (fieldPath, error) {
	fp := fieldPath{src: path}
	bad := func(format string, args ...any) (fieldPath, error) {
		return fieldPath{}, fmt.Errorf("keybuilder: field path %q of %v: %s: %w", path, t, fmt.Sprintf(format, args...), executor.ErrInvalidConfig)
	}
	if path == "" {
		return bad("empty path")
	}
	cur := t
	for _, seg := range strings.Split(path, ".") {
		ptrs := 0
		for cur.Kind() == reflect.Pointer {
			cur = cur.Elem()
			ptrs++
		}
		if cur.Kind() != reflect.Struct {
			return bad("%v is not a struct, so it has no field %q", cur, seg)
		}
		f, ok := cur.FieldByName(seg)
		switch {
		case seg == "" || !ok:
			return bad("%v has no field %q (or it is ambiguous)", cur, seg)
		case !f.IsExported():
			return bad("field %q of %v is not exported", seg, cur)
		}
		fp.steps = append(fp.steps, fieldStep{ptrs: ptrs, index: f.Index})
		cur = f.Type
	}
	leaf := cur
	if leaf.Kind() == reflect.Pointer && !leaf.Implements(textMarshaler) && !leaf.Implements(stringer) {
		leaf, fp.deref = leaf.Elem(), true
	}
	switch {
	case leaf.Implements(textMarshaler):
		fp.leaf = leafText
	case reflect.PointerTo(leaf).Implements(textMarshaler) && leaf.Kind() != reflect.Pointer:
		fp.leaf, fp.addr = leafText, true
	case leaf.Implements(stringer):
		fp.leaf = leafStringer
	case reflect.PointerTo(leaf).Implements(stringer) && leaf.Kind() != reflect.Pointer:
		fp.leaf, fp.addr = leafStringer, true
	default:
		switch leaf.Kind() {
		case reflect.String:
			fp.leaf = leafString
		case reflect.Bool:
			fp.leaf = leafBool
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			fp.leaf = leafInt
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			fp.leaf = leafUint
		case reflect.Float32, reflect.Float64:
			fp.leaf, fp.bits = leafFloat, leaf.Bits()
		case reflect.Slice:
			if leaf.Elem().Kind() != reflect.Uint8 {
				return bad("%v is not a scalar; key parts must be scalars", leaf)
			}
			fp.leaf = leafBytes
		default:
			return bad("%v is not a scalar; key parts must be scalars", leaf)
		}
	}
	return fp, nil
}

// value returns the part of v (addressable) at the path.
func (fp *fieldPath) value(v reflect.Value) (string, error) {
	for _, s := range fp.steps {
		for range s.ptrs {
			if v.IsNil() {
				return "", fp.missing("a nil pointer on the way")
			}
			v = v.Elem()
		}
		v = v.FieldByIndex(s.index)
	}
	if fp.deref {
		if v.IsNil() {
			return "", fp.missing("nil")
		}
		v = v.Elem()
	}
	var s string
	switch fp.leaf {
	case leafString:
		s = v.String()
	case leafBytes:
		s = string(v.Bytes())
	case leafBool:
		s = strconv.FormatBool(v.Bool())
	case leafInt:
		s = strconv.FormatInt(v.Int(), 10)
	case leafUint:
		s = strconv.FormatUint(v.Uint(), 10)
	case leafFloat:
		f := v.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return "", fp.missing("not a finite number")
		}
		if fp.bits == 32 {
			// The float32's own shortest form, then read as a float64,
			// so 0.1 stays "0.1".
			f, _ = strconv.ParseFloat(strconv.FormatFloat(f, 'g', -1, 32), 64)
		}
		s = floatKey(f)
	case leafText, leafStringer:
		var err error
		if s, err = fp.format(v); err != nil {
			return "", err
		}
	}
	if s == "" {
		return "", fp.missing("empty")
	}
	return s, nil
}

// format formats a TextMarshaler or Stringer leaf.
func (fp *fieldPath) format(v reflect.Value) (string, error) {
	if fp.addr {
		if !v.CanAddr() {
			return "", fp.missing("not addressable")
		}
		v = v.Addr()
	} else if (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) && v.IsNil() {
		return "", fp.missing("nil")
	}
	if fp.leaf == leafStringer {
		return v.Interface().(fmt.Stringer).String(), nil
	}
	b, err := v.Interface().(encoding.TextMarshaler).MarshalText()
	if err != nil {
		return "", fmt.Errorf("keybuilder: field %q: %w", fp.src, err)
	}
	return string(b), nil
}

func (fp *fieldPath) missing(why string) error {
	return fmt.Errorf("keybuilder: field %q is %s: %w", fp.src, why, executor.ErrInvalidKey)
}
