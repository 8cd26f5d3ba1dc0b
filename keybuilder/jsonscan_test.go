package keybuilder

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/keyexpr"
)

// sameAsBefore fails t when the scanner and the token-API extraction it
// replaced disagree on the part of path in data: the same value, or both an
// error wrapping ErrInvalidKey.
func sameAsBefore(t *testing.T, data []byte, path string, c keyexpr.Conv) {
	t.Helper()
	segs := strings.Split(path, ".")
	got, err := jsonValue(data, jsonSegs(segs), c)
	want, werr := oldJSONValue(data, segs, c)
	// A part that is "" is missing: the builder's error wraps ErrInvalidKey.
	if got == "" && err == nil {
		err = executor.ErrInvalidKey
	}
	if want == "" && werr == nil {
		werr = executor.ErrInvalidKey
	}
	if got != want || (err == nil) != (werr == nil) ||
		err != nil && !(errors.Is(err, executor.ErrInvalidKey) && errors.Is(werr, executor.ErrInvalidKey)) {
		t.Fatalf("json.%s of %.200q: %q, %v; before: %q, %v", path, data, got, err, want, werr)
	}
}

func TestJSONValue_sameAsBefore(t *testing.T) {
	bodies := []string{
		`{"id":42}`, `{"id":"42"}`, ` { "id" : 4.2e1 } `, `{"ID":1,"id":2}`, `{"Id":1}`, `{"i\u0064":7}`,
		`{"id":1}x`, `{"id":1,}`, `{"id":[1,2]}`, `{"id":{"a":1}}`, `{"id":null}`, `{"id":true}`,
		`{"id":"a\"b\\c\/d\b\f\n\r\t\u00e9\ud83d\ude00\ud800x"}`, "{\"id\":\"\xff\xfe\"}", `{"id":"\u0000"}`,
		`[{"id":1},{"id":2}]`, `{"a":{"id":"x","id":"y"}}`, `{"a":{"b":[0,{"id":-0}]}}`, `{"id":-0.0}`,
		`{"id":1e400}`, `{"id":01}`, `{"id":1.}`, `{"id":.5}`, `{"id":-}`, `{"id":1e}`, `{"id":"x`,
		"{\"id\":\"a\tb\"}", `{"id":tru}`, `{"id":nul}`, `{}`, `[]`, `42`, `"id"`, ``, ` `, `{"a":[],"id":{}}`,
		`{"\u212a":1}`, `{"k":1}`, strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
		`{"a":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `,"id":3}`,
	}
	paths := []string{"id", "a.id", "0.id", "1.id", "a.b.1.id", "k", "K", "a", "0", "+1"}
	for _, b := range bodies {
		for _, p := range paths {
			for _, c := range []keyexpr.Conv{keyexpr.ConvNone, keyexpr.ConvInt, keyexpr.ConvFloat} {
				sameAsBefore(t, []byte(b), p, c)
			}
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 5000 {
		var b strings.Builder
		randomJSON(r, &b, 0)
		doc := b.String()
		if r.IntN(20) == 0 && len(doc) > 1 { // an invalid document now and then
			i := r.IntN(len(doc))
			doc = doc[:i] + doc[i+1:]
		}
		sameAsBefore(t, []byte(doc), paths[r.IntN(len(paths))], keyexpr.Conv(r.IntN(3)))
	}
}

// randomJSON writes a random document whose members are often named like
// the test paths, in several cases and spellings.
func randomJSON(r *rand.Rand, b *strings.Builder, depth int) {
	ws := func() {
		if r.IntN(4) == 0 {
			b.WriteString([]string{" ", "\n", "\t", "\r\n "}[r.IntN(4)])
		}
	}
	ws()
	switch n := r.IntN(10); {
	case n < 2 && depth < 5:
		b.WriteByte('{')
		for i := range r.IntN(4) {
			if i > 0 {
				b.WriteByte(',')
			}
			ws()
			b.WriteString([]string{`"id"`, `"ID"`, `"a"`, `"b"`, `"k"`, `"\u0069d"`, `"x"`, `"K"`, `"\u212a"`}[r.IntN(9)])
			ws()
			b.WriteByte(':')
			randomJSON(r, b, depth+1)
		}
		ws()
		b.WriteByte('}')
	case n < 4 && depth < 5:
		b.WriteByte('[')
		for i := range r.IntN(4) {
			if i > 0 {
				b.WriteByte(',')
			}
			randomJSON(r, b, depth+1)
		}
		b.WriteByte(']')
	case n < 6:
		b.WriteString([]string{"0", "-0", "42", "4.2e1", "1E+2", "-1.5e-7", "9007199254740993", "1e400", "0.1", "12345678901234567890123"}[r.IntN(10)])
	case n < 8:
		b.WriteString([]string{`"42"`, `"042"`, `""`, `"a:b"`, `"\u00e9\n"`, `"\ud83d\ude00"`, `"\udc00"`, "\"\xff\"", `"+1"`, `"1.5"`}[r.IntN(10)])
	default:
		b.WriteString([]string{"true", "false", "null"}[r.IntN(3)])
	}
	ws()
}

// FuzzJSONValue_sameAsBefore is TestJSONValue_sameAsBefore over fuzzed
// documents and paths.
func FuzzJSONValue_sameAsBefore(f *testing.F) {
	f.Add([]byte(`{"id":42,"a":{"id":"x"}}`), "a.id", uint8(0))
	f.Add([]byte(`[{"ID":1,"id":2}]`), "0.id", uint8(1))
	f.Add([]byte(`{"i\u0064":"\ud83d\ude00"}`), "id", uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, path string, c uint8) {
		if path == "" || strings.Contains(path, "..") || strings.HasPrefix(path, ".") || strings.HasSuffix(path, ".") {
			return
		}
		sameAsBefore(t, data, path, keyexpr.Conv(c%3))
	})
}

// FuzzJSONScan_valid checks that the scanner accepts exactly what
// json.Valid accepts.
func FuzzJSONScan_valid(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":null}]}`, `"\u00e9"`, `-0.5e+3`, `[`, `{"a" 1}`, " \t\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s := jsonScanner{data: data, segs: jsonSegs([]string{"a"})}
		if got, want := s.scan(), json.Valid(data); got != want {
			t.Fatalf("scan(%q) = %v, json.Valid = %v", data, got, want)
		}
	})
}

// FuzzUnquote checks that strings decode as encoding/json decodes them.
func FuzzUnquote(f *testing.F) {
	for _, s := range []string{`"a"`, `"\ud83d\ude00"`, `"\ud83d"`, `"\udc00\ud800"`, "\"\xff\xc3\"", `"\/\b\f"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var want string
		if len(data) < 2 || data[0] != '"' || data[len(data)-1] != '"' || json.Unmarshal(data, &want) != nil {
			return
		}
		if got := jsonString(data); got != want {
			t.Fatalf("jsonString(%q) = %q, encoding/json: %q", data, got, want)
		}
	})
}

func TestJSONSegs(t *testing.T) {
	segs := jsonSegs([]string{"items", "1", "+2", "-1", "01"})
	for i, want := range []int{-1, 1, 2, -1, 1} {
		if segs[i].index != want {
			t.Errorf("segment %q: index %d, want %d (as strconv.Atoi reads it)", segs[i].name, segs[i].index, want)
		}
	}
	_ = strconv.Itoa
}
