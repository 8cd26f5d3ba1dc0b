package keybuilder

// The JSON extraction before the scanner, on encoding/json's token API,
// kept to prove that the scanner keys every body as it did.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/keyexpr"
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
func oldJSONValue(data []byte, path []string, c keyexpr.Conv) (string, error) {
	if len(data) == 0 {
		return "", fmt.Errorf("body is empty: %w", executor.ErrInvalidKey)
	}
	raw := json.RawMessage(data)
	if !json.Valid(raw) {
		return "", fmt.Errorf("body is not JSON: %w", executor.ErrInvalidKey)
	}
	for _, seg := range path {
		next, err := oldJSONChild(raw, seg)
		if err != nil || next == nil {
			return "", err
		}
		raw = next
	}
	return oldJSONScalar(raw, c)
}

// jsonChild returns the member seg of the object raw, or element seg of the
// array raw; nil when there is none or raw is a scalar.
func oldJSONChild(raw json.RawMessage, seg string) (json.RawMessage, error) {
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
func oldJSONScalar(raw json.RawMessage, c keyexpr.Conv) (string, error) {
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
		return keyexpr.Convert(c, x)
	case bool:
		if c != keyexpr.ConvNone {
			return "", fmt.Errorf("is a JSON boolean, not a number: %w", executor.ErrInvalidKey)
		}
		return strconv.FormatBool(x), nil
	case json.Number:
		return keyexpr.NumberPart(c, string(x))
	}
	return "", fmt.Errorf("is a JSON object or array, not a scalar: %w", executor.ErrInvalidKey)
}
