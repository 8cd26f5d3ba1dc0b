package keybuilder

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/lock4go/lock4go/executor"
)

// jsonValue returns the scalar at path in the JSON document data, in the
// form a key part takes, read as c ("" when the path leads nowhere or to
// null).
//
// An object on the path with two members whose names match the segment
// ignoring case (or the same name twice) is an error: encoding/json, decoding
// into a struct, matches names case-insensitively and keeps the last match,
// so {"orderId":"1","ORDERID":"2"} would lock order 1 while the handler
// works on order 2.
func jsonValue(data []byte, path []string, c conv) (string, error) {
	if len(data) == 0 {
		return "", fmt.Errorf("body is empty: %w", executor.ErrInvalidKey)
	}
	raw := json.RawMessage(data)
	if !json.Valid(raw) {
		return "", fmt.Errorf("body is not JSON: %w", executor.ErrInvalidKey)
	}
	for _, seg := range path {
		next, err := jsonChild(raw, seg)
		if err != nil || next == nil {
			return "", err
		}
		raw = next
	}
	return jsonScalar(raw, c)
}

// jsonChild returns the member seg of the object raw, or element seg of the
// array raw; nil when there is none or raw is a scalar.
func jsonChild(raw json.RawMessage, seg string) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("body is not JSON: %w", executor.ErrInvalidKey)
	}
	switch tok {
	case json.Delim('{'):
		var found json.RawMessage
		matches := 0
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, fmt.Errorf("body is not JSON: %w", executor.ErrInvalidKey)
			}
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				return nil, fmt.Errorf("body is not JSON: %w", executor.ErrInvalidKey)
			}
			if name, _ := k.(string); strings.EqualFold(name, seg) {
				matches++
				found = v
			}
		}
		if matches > 1 {
			return nil, fmt.Errorf("JSON object has %d members named %q (ignoring case): ambiguous: %w", matches, seg, executor.ErrInvalidKey)
		}
		return found, nil
	case json.Delim('['):
		i, err := strconv.Atoi(seg)
		if err != nil || i < 0 {
			return nil, nil
		}
		for n := 0; dec.More(); n++ {
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				return nil, fmt.Errorf("body is not JSON: %w", executor.ErrInvalidKey)
			}
			if n == i {
				return v, nil
			}
		}
	}
	return nil, nil
}

// jsonScalar formats the JSON scalar raw as a key part read as c: strings
// as they are (or as numbers, for |int and |float), numbers by value (see
// jsonNumberPart), booleans as "true" or "false" (an error for |int and
// |float).
func jsonScalar(raw json.RawMessage, c conv) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "", fmt.Errorf("body is not JSON: %w", executor.ErrInvalidKey)
	}
	switch x := v.(type) {
	case nil:
		return "", nil
	case string:
		if x == "" {
			return "", nil
		}
		return convert(c, x)
	case bool:
		if c != convNone {
			return "", fmt.Errorf("is a JSON boolean, not a number: %w", executor.ErrInvalidKey)
		}
		return strconv.FormatBool(x), nil
	case json.Number:
		return jsonNumberPart(c, string(x))
	}
	return "", fmt.Errorf("is a JSON object or array, not a scalar: %w", executor.ErrInvalidKey)
}

// maxExactNumber bounds the length of the JSON number literals keyed by
// their exact integer value (longer ones are rejected), and of |int parts.
// With the value within float64's range, it also bounds the exponent, so no
// request can make the key builder compute a huge power of ten.
const maxExactNumber = 400

// canonicalNumber returns one spelling per number value, never two for one
// value an integer field sees: values that are integers are keyed by their
// exact integer value whatever the spelling (42, 42.0 and 4.2e1 give "42";
// 1e20 and 100000000000000000000 give the same), which is what an int64
// field sees; other values by their float64 value (in the shortest form, or
// as the integer a float64 rounds them to), which is what a float64 field
// sees (so 0.1 and 0.10000000000000000001 share a key: more locking, never
// less). Integers above 2^53 that a float64 cannot tell apart keep keys of
// their own: the package documentation says why |float exists. A number out
// of float64's range is an error.
func canonicalNumber(s string) (string, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return "", fmt.Errorf("JSON number %.40q is out of range: %w", s, executor.ErrInvalidKey)
	}
	if f != math.Trunc(f) || math.Abs(f) < 1<<53 {
		return floatKey(f), nil
	}
	if len(s) > maxExactNumber {
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
