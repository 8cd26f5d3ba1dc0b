package keybuilder

import (
	"fmt"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/keyexpr"
)

// jsonValue returns the scalar at segs in the JSON document data, in the
// form a key part takes, read as c ("" when the path leads nowhere or to
// null).
//
// An object on the path with two members whose names match the segment
// ignoring case (or the same name twice) is an error: encoding/json, decoding
// into a struct, matches names case-insensitively and keeps the last match,
// so {"orderId":"1","ORDERID":"2"} would lock order 1 while the handler
// works on order 2.
//
// The document is read once, by a scanner that validates it as json.Valid
// does and skips every value it does not need without building it, so the
// cost is linear in the body and about that of json.Valid whatever its
// shape.
func jsonValue(data []byte, segs []jsonSeg, c keyexpr.Conv) (string, error) {
	if len(data) == 0 {
		return "", fmt.Errorf("body is empty: %w", executor.ErrInvalidKey)
	}
	raw, err := jsonFind(data, segs)
	if err != nil || raw == nil {
		return "", err
	}
	return jsonScalar(raw, c)
}

// jsonScalar formats the valid JSON value raw as a key part read as c:
// strings as they are (or as numbers, for |int and |float, or bytes, for
// |base64), numbers by value (see keyexpr.NumberPart), booleans as "true" or
// "false" (an error for a conversion), null as missing.
func jsonScalar(raw []byte, c keyexpr.Conv) (string, error) {
	switch raw[0] {
	case 'n':
		return "", nil
	case '"':
		x := jsonString(raw)
		if x == "" {
			return "", nil
		}
		return keyexpr.Convert(c, x)
	case 't', 'f':
		if c != keyexpr.ConvNone {
			return "", fmt.Errorf("is a JSON boolean, not a number or base64 text: %w", executor.ErrInvalidKey)
		}
		return string(raw), nil
	case '{', '[':
		return "", fmt.Errorf("is a JSON object or array, not a scalar: %w", executor.ErrInvalidKey)
	}
	return keyexpr.NumberPart(c, string(raw))
}

// jsonString returns the value of the valid JSON string raw (quotes
// included), as encoding/json decodes it.
func jsonString(raw []byte) string {
	body := raw[1 : len(raw)-1]
	for _, c := range body {
		if c == '\\' || c >= utf8.RuneSelf {
			return string(unquote(make([]byte, 0, len(body)), body))
		}
	}
	return string(body)
}

// unquote appends to dst the value of the body of a valid JSON string (the
// bytes between its quotes), as encoding/json decodes it: escapes
// replaced, surrogate pairs joined, lone surrogates and bytes that are not
// valid UTF-8 replaced by U+FFFD.
func unquote(dst, body []byte) []byte {
	for i := 0; i < len(body); {
		c := body[i]
		switch {
		case c == '\\':
			var n int
			dst, n = unescapeSeq(dst, body[i:])
			i += n
		case c < utf8.RuneSelf:
			dst = append(dst, c)
			i++
		default:
			r, size := utf8.DecodeRune(body[i:])
			dst = utf8.AppendRune(dst, r)
			i += size
		}
	}
	return dst
}

// unescape appends the value of the valid escape sequence at the start of
// b and returns the number of bytes it took: one \uXXXX, or two for a
// surrogate pair.
func unescapeSeq(dst, b []byte) ([]byte, int) {
	switch b[1] {
	case 'b':
		return append(dst, '\b'), 2
	case 'f':
		return append(dst, '\f'), 2
	case 'n':
		return append(dst, '\n'), 2
	case 'r':
		return append(dst, '\r'), 2
	case 't':
		return append(dst, '\t'), 2
	case 'u':
		r := hex4(b[2:6])
		if utf16.IsSurrogate(r) {
			if len(b) >= 12 && b[6] == '\\' && b[7] == 'u' && escLen(b[6:]) == 6 {
				if dec := utf16.DecodeRune(r, hex4(b[8:12])); dec != unicode.ReplacementChar {
					return utf8.AppendRune(dst, dec), 12
				}
			}
			r = unicode.ReplacementChar
		}
		return utf8.AppendRune(dst, r), 6
	}
	return append(dst, b[1]), 2 // '"', '\\', '/'
}

// hex4 returns the value of four hex digits.
func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		switch {
		case c <= '9':
			c -= '0'
		case c <= 'F':
			c -= 'A' - 10
		default:
			c -= 'a' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}
