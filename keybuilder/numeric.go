package keybuilder

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/lock4go/lock4go/executor"
)

// conv is the numeric reading an expression asks for with "|int" or
// "|float": the part is keyed by the value a handler that parses it sees,
// not by its spelling.
type conv uint8

const (
	convNone  conv = iota
	convInt        // |int: a base-10 integer, exactly
	convFloat      // |float: a float64, as strconv.ParseFloat reads it
)

// convs maps the names written after "|" to conversions.
var convs = map[string]conv{"int": convInt, "float": convFloat}

// convert returns the key part of the string v read as c.
func convert(c conv, v string) (string, error) {
	switch c {
	case convInt:
		return intPart(v)
	case convFloat:
		return floatPart(v)
	}
	return v, nil
}

// intPart returns the integer s in one form per value. s is read as
// strconv.ParseInt(s, 10, 64) reads it, without its range: an optional sign,
// then decimal digits, leading zeros allowed ("042", "+42" and "42" give
// "42"; "-0" gives "0"). Anything else is an error.
func intPart(s string) (string, error) {
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
	case len(d) > maxExactNumber:
		return "", fmt.Errorf("integer %.40q is too long: %w", s, executor.ErrInvalidKey)
	case neg:
		return "-" + d, nil
	}
	return d, nil
}

// floatPart returns the float64 value of s, as strconv.ParseFloat(s, 64)
// reads it (and encoding/json for a float64 field, ",string" ones too), in
// one form per value (see floatKey). A string that is not a number, or whose
// value is not finite, is an error.
func floatPart(s string) (string, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return "", fmt.Errorf("%.40q is not a finite number: %w", s, executor.ErrInvalidKey)
	}
	return floatKey(f), nil
}

// floatKey formats the finite f in one form per value: an integer as its
// exact decimal digits ("42", "100000000000000000000"; -0 as "0"), any
// other value in the shortest form that reads back as f ("0.1", "1e-07").
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

// jsonNumberPart returns the key part of the JSON number literal s read as
// c: by default, and for |int, exact integer values whatever the spelling
// (a value that is not an integer is an error for |int); for |float, the
// float64 value.
func jsonNumberPart(c conv, s string) (string, error) {
	switch c {
	case convFloat:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return "", fmt.Errorf("JSON number %.40q is out of range: %w", s, executor.ErrInvalidKey)
		}
		return floatKey(f), nil
	case convInt:
		v, err := canonicalNumber(s)
		if err != nil {
			return "", err
		}
		if strings.ContainsAny(v, ".e") {
			return "", fmt.Errorf("JSON number %.40q is not an integer: %w", s, executor.ErrInvalidKey)
		}
		return v, nil
	}
	return canonicalNumber(s)
}
