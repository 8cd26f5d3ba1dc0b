package keybuilder

import (
	"encoding"
	"fmt"
	"reflect"
	"strings"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/keyexpr"
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
// fields of embedded structs count. Paths are parsed and checked against
// Req once, here: an unknown, unexported, ambiguous or non-scalar field (a
// proto message other than a wrapper included: its String is not stable)
// is an error wrapping executor.ErrInvalidConfig, as is an empty name. No
// paths make one key for every value.
//
// A leaf is formatted as the other builders format the same value (see
// "One key per value" in the package documentation). A pointer is
// dereferenced first (a *Status, a *time.Duration and the *T of a proto2
// or proto3 optional enum field are keyed as Status, time.Duration and T
// are), and a well-known proto wrapper (*wrapperspb.Int64Value and the
// others) is keyed by its value, as grpclock keys it; then, in this
// order:
//   - a type implementing encoding.TextMarshaler: its text, as
//     encoding/json writes it;
//   - a bool, integer, float, string or []byte kind, named types
//     included: its value, whatever String method it has (an enum is
//     keyed by its number, as grpclock keys proto enums; a time.Duration
//     by its nanoseconds, as encoding/json writes it); floats in one form
//     per value (1.50 and 1.5 alike, -0 as 0, 1e6 as 1000000); []byte in
//     standard base64, as encoding/json and protojson write it;
//   - a type implementing fmt.Stringer: its String.
//
// The returned function is safe for concurrent use. A nil pointer on a
// path (an embedded one included) or an empty part is a [*PartError] with
// Missing set; a float that is NaN or infinite, or a part longer than the
// part cap ([DefaultMaxPartLen]; for []byte, of bytes), a *PartError
// without: both wrap executor.ErrInvalidKey (a request without a key). Of
// the options only [WithMaxKeyLen] and [WithMaxPartLen] apply.
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
	maxPartLen := o.maxPartLen
	return func(req Req) (string, error) {
		var buf [8]string
		parts := buf[:0]
		v := reflect.ValueOf(&req).Elem()
		for i := range fields {
			s, err := fields[i].value(v, maxPartLen)
			if err != nil {
				return "", err
			}
			parts = append(parts, s)
		}
		return join(prefix, name, parts)
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
	src    string
	steps  []fieldStep
	leaf   leafKind
	bits   int  // of a float leaf
	addr   bool // the leaf's pointer implements the interface, not the leaf
	derefs int  // pointers to dereference after the last step
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
	for leaf.Kind() == reflect.Pointer {
		leaf = leaf.Elem()
		fp.derefs++
	}
	if f, ok := wrapperValue(leaf); ok {
		fp.steps = append(fp.steps, fieldStep{ptrs: fp.derefs, index: f.Index})
		leaf, fp.derefs = f.Type, 0
	}
	if !fp.compileLeaf(leaf) {
		return bad("%v is not a scalar; key parts must be scalars", leaf)
	}
	return fp, nil
}

// wrapperValue returns the Value field of a well-known proto wrapper
// message type (wrapperspb.Int64Value and the others), found by name so
// that this package links no protobuf: grpclock keys such a field by its
// value, a set wrapper's zero included, and prototext (the wrappers'
// String) is not stable.
func wrapperValue(t reflect.Type) (reflect.StructField, bool) {
	if t.Kind() != reflect.Struct || t.PkgPath() != "google.golang.org/protobuf/types/known/wrapperspb" {
		return reflect.StructField{}, false
	}
	switch t.Name() {
	case "DoubleValue", "FloatValue", "Int64Value", "UInt64Value", "Int32Value", "UInt32Value", "BoolValue",
		"StringValue", "BytesValue":
		return t.FieldByName("Value")
	}
	return reflect.StructField{}, false
}

// compileLeaf picks how a leaf of type leaf is formatted, in the order the
// package documentation gives: encoding.TextMarshaler (as encoding/json
// does), then the value of a bool, number, string or []byte whatever its
// methods (an enum is keyed by its number, as gRPC keys it), then
// fmt.Stringer. It reports false for a leaf that is none of them.
func (fp *fieldPath) compileLeaf(leaf reflect.Type) bool {
	switch {
	case leaf.Implements(textMarshaler):
		fp.leaf = leafText
		return true
	case reflect.PointerTo(leaf).Implements(textMarshaler) && leaf.Kind() != reflect.Pointer:
		fp.leaf, fp.addr = leafText, true
		return true
	}
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
			return fp.compileStringer(leaf)
		}
		fp.leaf = leafBytes
	default:
		return fp.compileStringer(leaf)
	}
	return true
}

func (fp *fieldPath) compileStringer(leaf reflect.Type) bool {
	if _, ok := reflect.PointerTo(leaf).MethodByName("ProtoReflect"); ok {
		return false // a proto message: its String (prototext) is not stable
	}
	switch {
	case leaf.Implements(stringer):
		fp.leaf = leafStringer
	case reflect.PointerTo(leaf).Implements(stringer) && leaf.Kind() != reflect.Pointer:
		fp.leaf, fp.addr = leafStringer, true
	default:
		return false
	}
	return true
}

// value returns the part of v (addressable) at the path.
func (fp *fieldPath) value(v reflect.Value, maxPartLen int) (string, error) {
	for _, s := range fp.steps {
		if v = deref(v, s.ptrs); !v.IsValid() {
			return "", fp.missing()
		}
		var err error
		if v, err = v.FieldByIndexErr(s.index); err != nil {
			return "", fp.missing() // through a nil embedded pointer
		}
	}
	if v = deref(v, fp.derefs); !v.IsValid() {
		return "", fp.missing()
	}
	if fp.leaf == leafBytes && v.Len() > maxPartLen { // the cap is on the bytes
		return "", tooLong(fp.src, v.Len(), maxPartLen)
	}
	s, err := fp.format(v)
	switch {
	case err != nil:
		return "", err
	case s == "":
		return "", fp.missing()
	case fp.leaf != leafBytes && len(s) > maxPartLen:
		return "", tooLong(fp.src, len(s), maxPartLen)
	}
	return s, nil
}

// deref follows n pointers from v; the zero Value when one is nil.
func deref(v reflect.Value, n int) reflect.Value {
	for range n {
		if v.IsNil() {
			return reflect.Value{}
		}
		v = v.Elem()
	}
	return v
}

// format formats the leaf v.
func (fp *fieldPath) format(v reflect.Value) (string, error) {
	switch fp.leaf {
	case leafString:
		return v.String(), nil
	case leafBytes:
		return keyexpr.Bytes(v.Bytes()), nil
	case leafBool:
		return keyexpr.Bool(v.Bool()), nil
	case leafInt:
		return keyexpr.Int(v.Int()), nil
	case leafUint:
		return keyexpr.Uint(v.Uint()), nil
	case leafFloat:
		var s string
		var err error
		if fp.bits == 32 {
			s, err = keyexpr.Float32(float32(v.Float()))
		} else {
			s, err = keyexpr.Float(v.Float())
		}
		if err != nil {
			return "", &PartError{Expr: fp.src, Err: err}
		}
		return s, nil
	}
	return fp.marshal(v)
}

// marshal formats a TextMarshaler or Stringer leaf.
func (fp *fieldPath) marshal(v reflect.Value) (string, error) {
	if fp.addr {
		if !v.CanAddr() { // not reached: v is a field of the addressable request
			return "", fp.missing()
		}
		v = v.Addr()
	} else if (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) && v.IsNil() {
		return "", fp.missing()
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

// missing returns the error of a nil or empty part.
func (fp *fieldPath) missing() error { return missing(fp.src) }
