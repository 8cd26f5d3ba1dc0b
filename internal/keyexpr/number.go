package keyexpr

import (
	"encoding/base64"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/lock4go/lock4go/executor"
)

// Conv is the reading an expression asks for with "|int", "|float" or
// "|base64": the part is keyed by the value a handler that parses it
// sees, not by its spelling.
type Conv uint8

// The conversions.
const (
	ConvNone   Conv = iota
	ConvInt         // |int: a base-10 integer, exactly
	ConvFloat       // |float: a float64, as strconv.ParseFloat reads it
	ConvBase64      // |base64: bytes, as encoding/json and protojson decode them
)

// convs maps the names written after "|" to conversions.
var convs = map[string]Conv{"int": ConvInt, "float": ConvFloat, "base64": ConvBase64}

// MaxExactNumber bounds the length of the JSON number literals keyed by
// their exact integer value (longer ones are rejected), and of |int parts.
// With the value within float64's range, it also bounds the exponent, so no
// request can make a key builder compute a huge power of ten.
const MaxExactNumber = 400

// Convert returns the key part of the string v read as c (v itself for
// ConvNone). A v that c cannot read is an error wrapping
// executor.ErrInvalidKey.
func Convert(c Conv, v string) (string, error) {
	switch c {
	case ConvInt:
		return IntPart(v)
	case ConvFloat:
		return FloatPart(v)
	case ConvBase64:
		return Base64Part(v)
	}
	return v, nil
}

// Base64Part returns the bytes that the base64 text s stands for, in the
// form [Bytes] gives every bytes value (standard base64, padded). s is
// read as encoding/json reads a []byte (standard alphabet, padded, '\r'
// and '\n' skipped) or, when encoding/json refuses it, as protojson reads
// a bytes field (the URL-safe alphabet when s has '-' or '_', padding
// optional): so "AA==", "AB==", "A\nA==", "AA" and "AA--" give one part.
// Text neither reads is an error; the empty text (or only line breaks)
// gives "", a missing part.
func Base64Part(s string) (string, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		enc := base64.StdEncoding
		if strings.ContainsAny(s, "-_") {
			enc = base64.URLEncoding
		}
		if len(s)%4 != 0 {
			enc = enc.WithPadding(base64.NoPadding)
		}
		if b, err = enc.DecodeString(s); err != nil {
			return "", fmt.Errorf("%.40q is not base64: %w", s, executor.ErrInvalidKey)
		}
	}
	return Bytes(b), nil
}

// IntPart returns the integer s in one form per value. s is read as
// strconv.ParseInt(s, 10, 64) reads it, without its range: an optional sign,
// then decimal digits, leading zeros allowed ("042", "+42" and "42" give
// "42"; "-0" gives "0"). Anything else is an error.
func IntPart(s string) (string, error) {
	d, neg := s, false
	if d != "" && (d[0] == '+' || d[0] == '-') {
		d, neg = d[1:], d[0] == '-'
	}
	if d == "" || strings.TrimLeft(d, "0123456789") != "" {
		return "", fmt.Errorf("%.40q is not an integer: %w", s, executor.ErrInvalidKey)
	}
	d = strings.TrimLeft(d, "0")
	switch {
	case d == "":
		return "0", nil
	case len(d) > MaxExactNumber:
		return "", fmt.Errorf("integer %.40q is too long: %w", s, executor.ErrInvalidKey)
	case neg:
		return "-" + d, nil
	}
	return d, nil
}

// FloatPart returns the float64 value of s, as strconv.ParseFloat(s, 64)
// reads it (and encoding/json for a float64 field, ",string" ones too), in
// one form per value (see [Float]). A string that is not a number, or whose
// value is not finite, is an error.
func FloatPart(s string) (string, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return "", fmt.Errorf("%.40q is not a finite number: %w", s, executor.ErrInvalidKey)
	}
	return floatKey(f), nil
}

// Float returns the key part of a typed float64 (a proto double, a Go
// float64 field), the form the JSON builder gives the number encoding/json
// or protojson writes for it, so that every builder keys it alike: an
// integer as decimal digits ("42", "1500000"; -0 as "0"; above 2^53, the
// integer its shortest decimal form spells, "1e+21" as
// "1000000000000000000000", as the JSON builder keys that literal), any
// other value in the shortest form that reads back as f ("0.1",
// "1e-07"). NaN and infinities are errors wrapping executor.ErrInvalidKey:
// no key stands for them.
func Float(f float64) (string, error) {
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		return "", fmt.Errorf("%v is not a finite number: %w", f, executor.ErrInvalidKey)
	case f == math.Trunc(f) && math.Abs(f) >= 1<<53:
		return wholeShortest(f), nil
	}
	return floatKey(f), nil
}

// wholeShortest returns the integer that the shortest decimal form of the
// whole f spells ("3.4e+38": 34 and 37 zeros), not the binary value's
// exact digits: what CanonicalNumber keys the literal encoding/json writes.
func wholeShortest(f float64) string {
	s := strconv.FormatFloat(f, 'e', -1, 64) // [-]d[.ddd]e±dd
	mant, exp, _ := strings.Cut(s, "e")
	e, _ := strconv.Atoi(exp)
	neg := strings.HasPrefix(mant, "-")
	digits := strings.Replace(strings.TrimPrefix(mant, "-"), ".", "", 1)
	zeros := e - (len(digits) - 1)
	if zeros < 0 { // not reached: a whole float's shortest form has no fraction
		return floatKey(f)
	}
	if neg {
		return "-" + digits + strings.Repeat("0", zeros)
	}
	return digits + strings.Repeat("0", zeros)
}

// Float32 returns the key part of a float32: its own shortest form read as
// a float64, so that float32(0.1) is "0.1", as encoding/json writes it.
func Float32(f float32) (string, error) {
	// NaN and infinities survive the round trip ("NaN", "+Inf") and are
	// refused by Float.
	f64, _ := strconv.ParseFloat(strconv.FormatFloat(float64(f), 'g', -1, 32), 64)
	return Float(f64)
}

// floatKey formats the finite f as [Float] describes.
func floatKey(f float64) string {
	if f != math.Trunc(f) {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	if math.Abs(f) < 1<<53 {
		return strconv.FormatInt(int64(f), 10) // also -0 → 0
	}
	i, _ := big.NewFloat(f).Int(nil)
	return i.String()
}

// Int returns the key part of a signed integer.
func Int(i int64) string { return strconv.FormatInt(i, 10) }

// Uint returns the key part of an unsigned integer.
func Uint(u uint64) string { return strconv.FormatUint(u, 10) }

// Bytes returns the key part of a bytes value: standard base64 with
// padding, as encoding/json and protojson write bytes, so that a JSON body
// carrying the same value keys alike.
func Bytes(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// Bool returns the key part of a boolean, "true" or "false".
func Bool(b bool) string { return strconv.FormatBool(b) }

// CanonicalNumber returns one spelling per number value, never two for one
// value an integer field sees: values that are integers are keyed by their
// exact integer value whatever the spelling (42, 42.0 and 4.2e1 give "42";
// 1e20 and 100000000000000000000 give the same), which is what an int64
// field sees; other values by their float64 value (in the shortest form, or
// as the integer a float64 rounds them to), which is what a float64 field
// sees (so 0.1 and 0.10000000000000000001 share a key: more locking, never
// less). Integers above 2^53 that a float64 cannot tell apart keep keys of
// their own. A number out of float64's range is an error. s is a JSON
// number literal.
func CanonicalNumber(s string) (string, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return "", fmt.Errorf("JSON number %.40q is out of range: %w", s, executor.ErrInvalidKey)
	}
	if f != math.Trunc(f) || math.Abs(f) < 1<<53 {
		return floatKey(f), nil
	}
	if len(s) > MaxExactNumber {
		return "", fmt.Errorf("JSON number %.40q is too long: %w", s, executor.ErrInvalidKey)
	}
	var r big.Rat
	if _, ok := r.SetString(s); ok && r.IsInt() {
		return r.Num().String(), nil
	}
	// Not an integer, but a float64 sees one: key it as that integer, so
	// 10000000000000000.1 and 10000000000000000 share a key.
	return floatKey(f), nil
}

// NumberPart returns the key part of the JSON number literal s read as c:
// by default, and for |int, exact integer values whatever the spelling (a
// value that is not an integer is an error for |int); for |float, the
// float64 value; for |base64, an error (a number is not base64 text).
func NumberPart(c Conv, s string) (string, error) {
	switch c {
	case ConvBase64:
		return "", fmt.Errorf("is a JSON number, not base64 text: %w", executor.ErrInvalidKey)
	case ConvFloat:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return "", fmt.Errorf("JSON number %.40q is out of range: %w", s, executor.ErrInvalidKey)
		}
		return floatKey(f), nil
	case ConvInt:
		v, err := CanonicalNumber(s)
		if err != nil {
			return "", err
		}
		if strings.ContainsAny(v, ".e") {
			return "", fmt.Errorf("JSON number %.40q is not an integer: %w", s, executor.ErrInvalidKey)
		}
		return v, nil
	}
	return CanonicalNumber(s)
}
