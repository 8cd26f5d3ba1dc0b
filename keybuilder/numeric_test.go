package keybuilder

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/lock4go/lock4go/executor"
)

func TestIntPart(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"42", "42"}, {"042", "42"}, {"0042", "42"}, {"+42", "42"}, {"-042", "-42"},
		{"0", "0"}, {"-0", "0"}, {"+000", "0"},
		{"9007199254740993", "9007199254740993"},
		{"123456789012345678901234567890", "123456789012345678901234567890"},
		{"", ""}, {"-", ""}, {"+-1", ""}, {"4.2e1", ""}, {"42.0", ""}, {" 42", ""}, {"4_2", ""},
		{"0x2A", ""}, {"٤٢", ""}, {strings.Repeat("9", maxExactNumber+1), ""},
	} {
		got, err := intPart(tt.in)
		if tt.want == "" {
			if !errors.Is(err, executor.ErrInvalidKey) {
				t.Errorf("intPart(%q) = %q, %v; want ErrInvalidKey", tt.in, got, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("intPart(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestFloatPart(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"42", "42"}, {"042", "42"}, {"42.0", "42"}, {"4.2e1", "42"}, {"0x2Ap0", "42"}, {"4_2", "42"}, {"+42", "42"},
		{"-0", "0"}, {"0.1", "0.1"}, {"1e-7", "1e-07"}, {"1e20", "100000000000000000000"},
		{"9007199254740993", "9007199254740992"}, {"9007199254740992", "9007199254740992"},
		{"1e-400", "0"},
		{"", ""}, {"abc", ""}, {"NaN", ""}, {"-Inf", ""}, {"infinity", ""}, {"1e400", ""}, {"0x2A", ""}, {" 42", ""},
	} {
		got, err := floatPart(tt.in)
		if tt.want == "" {
			if !errors.Is(err, executor.ErrInvalidKey) {
				t.Errorf("floatPart(%q) = %q, %v; want ErrInvalidKey", tt.in, got, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("floatPart(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

// handlerBodies are JSON bodies whose id a handler may decode.
var handlerBodies = []string{
	`{"id":42}`, `{"id":"42"}`, `{"id":"042"}`, `{"id":"0042"}`, `{"id":"+42"}`, `{"id":"-042"}`, `{"id":-42}`,
	`{"id":"42.0"}`, `{"id":"4.2e1"}`, `{"id":4.2e1}`, `{"id":42.0}`, `{"id":"0x2Ap0"}`, `{"id":"4_2"}`, `{"id":43}`, `{"id":"43"}`,
	`{"id":0}`, `{"id":"0"}`, `{"id":"-0"}`, `{"id":-0.0}`, `{"id":"00"}`,
	`{"id":9007199254740992}`, `{"id":9007199254740993}`, `{"id":"9007199254740993"}`, `{"id":"9007199254740992"}`, `{"id":9007199254740992.5}`,
	`{"id":1e20}`, `{"id":"1e20"}`, `{"id":100000000000000000000}`,
	`{"id":0.1}`, `{"id":"0.1"}`, `{"id":0.10000000000000000001}`, `{"id":"0.10000000000000000001"}`,
	`{"id":18446744073709551615}`, `{"id":"18446744073709551615"}`, `{"id":"018446744073709551615"}`,
	`{"id":"-Inf"}`, `{"id":"abc"}`, `{"id":true}`, `{"id":"true"}`, `{"id":null}`, `{"id":""}`,
}

// idHandler decodes the id of a JSON body as a handler would: the value it
// sees, and whether it accepts the body.
type idHandler func([]byte) (any, bool)

// decodeInto returns the idHandler that decodes into a fresh *T and reads
// the id with id.
func decodeInto[T any](id func(*T) any) idHandler {
	return func(b []byte) (any, bool) {
		var v T
		if err := json.Unmarshal(b, &v); err != nil {
			return nil, false
		}
		return id(&v), true
	}
}

type (
	i64s struct {
		ID int64 `json:"id,string"`
	}
	i64  struct{ ID int64 }
	u64s struct {
		ID uint64 `json:"id,string"`
	}
	f64s struct {
		ID float64 `json:"id,string"`
	}
	f64 struct{ ID float64 }
	str struct{ ID string }
	num struct{ ID json.Number }
)

var (
	int64String   = decodeInto(func(v *i64s) any { return v.ID })
	int64Plain    = decodeInto(func(v *i64) any { return v.ID })
	uint64String  = decodeInto(func(v *u64s) any { return v.ID })
	float64String = decodeInto(func(v *f64s) any { return v.ID })
	float64Plain  = decodeInto(func(v *f64) any { return v.ID })
	stringPlain   = decodeInto(func(v *str) any { return v.ID })
	numberPlain   = decodeInto(func(v *num) any { return numberValue(v.ID) })
	anyMap        = decodeInto(func(v *map[string]any) any { return (*v)["id"] })
)

// disagreements returns the pairs of handlerBodies in which h sees one id
// but expr builds two keys. A body whose key is refused (ErrInvalidKey, a
// 400: the handler does not run) agrees with every other.
func disagreements(t *testing.T, expr string, h idHandler) []string {
	t.Helper()
	kb, err := NewHTTP("lock4go", "order", []string{expr})
	if err != nil {
		t.Fatal(err)
	}
	first := map[any]string{} // id → the first body keyed with it
	keys := map[string]string{}
	var out []string
	for _, body := range handlerBodies {
		v, ok := h([]byte(body))
		if !ok {
			continue
		}
		r := httptest.NewRequest("POST", "/", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		key, err := kb.Key(r)
		if err != nil {
			if !errors.Is(err, executor.ErrInvalidKey) {
				t.Errorf("body %s: Key error %v", body, err)
			}
			continue
		}
		if b, ok := first[v]; ok && keys[b] != key {
			out = append(out, fmt.Sprintf("%v: %s keyed %q, %s keyed %q", v, b, keys[b], body, key))
			continue
		}
		if _, ok := first[v]; !ok {
			first[v], keys[body] = body, key
		}
	}
	return out
}

// TestHTTP_Key_agreesWithHandler checks, for handlers that decode the id
// into various Go types, that every two bodies in which the handler sees
// the same id build the same key with the expression the package
// documentation ("Numbers") tells a user of that type to use; and that the
// plain json. expression does not, where the documentation warns.
func TestHTTP_Key_agreesWithHandler(t *testing.T) {
	for _, tt := range []struct {
		name, expr string
		h          idHandler
		agree      bool
	}{
		{"int64 ,string", "json.id|int", int64String, true},
		{"int64", "json.id|int", int64Plain, true},
		{"uint64 ,string", "json.id|int", uint64String, true},
		{"float64 ,string", "json.id|float", float64String, true},
		{"float64", "json.id|float", float64Plain, true},
		{"map[string]any", "json.id|float", anyMap, true},
		{"json.Number", "json.id|float", numberPlain, true},
		{"int64 ,string keyed by |float", "json.id|float", int64String, true},
		{"int64 keyed by json.", "json.id", int64Plain, true},
		{"string keyed by json.", "json.id", stringPlain, true},
		{"trap: int64 ,string keyed by json.", "json.id", int64String, false},
		{"trap: float64 ,string keyed by json.", "json.id", float64String, false},
		{"trap: float64 keyed by json.", "json.id", float64Plain, false}, // 2^53 + 1
		{"trap: map[string]any keyed by json.", "json.id", anyMap, false},
		{"trap: float64 keyed by |int", "json.id|int", float64Plain, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := disagreements(t, tt.expr, tt.h)
			switch {
			case tt.agree && len(d) > 0:
				t.Errorf("the handler sees one id, the keys differ:\n%s", strings.Join(d, "\n"))
			case !tt.agree && len(d) == 0:
				t.Error("no disagreement found: the trap this case shows is gone; update the documentation")
			}
		})
	}
}

// numberValue returns the float64 a json.Number handler converting with
// Float64 sees.
func numberValue(n json.Number) any {
	f, err := n.Float64()
	if err != nil || math.IsInf(f, 0) {
		return "unparsable " + string(n)
	}
	return f
}

// TestHTTP_Key_jsonStringsAsTheyAre shows the trap that |int and |float
// avoid: json. keys strings as they are.
func TestHTTP_Key_jsonStringsAsTheyAre(t *testing.T) {
	kb, err := NewHTTP("lock4go", "order", []string{"json.id"})
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	for _, body := range []string{`{"id":"42"}`, `{"id":"042"}`, `{"id":"0042"}`} {
		r := httptest.NewRequest("POST", "/", bytes.NewBufferString(body))
		r.Header.Set("Content-Type", "application/json")
		k, err := kb.Key(r)
		if err != nil {
			t.Fatal(err)
		}
		keys[k] = true
	}
	if len(keys) != 3 {
		t.Fatalf("keys %v, want three: strings are keyed as they are", keys)
	}
}

func TestConvert_sources(t *testing.T) {
	for _, tt := range []struct {
		expr, target, want string
	}{
		{"query.id|int", "/?id=0042", "lock4go:order#42"},
		{"query.id|float", "/?id=4.2e1", "lock4go:order#42"},
		{"query.id|float", "/?id=9007199254740993", "lock4go:order#9007199254740992"},
		{"query.id|int", "/?id=4.2e1", ""},
		{"query.id|int", "/?id=", ""},
	} {
		kb, err := NewHTTP("lock4go", "order", []string{tt.expr})
		if err != nil {
			t.Fatal(err)
		}
		got, err := kb.Key(httptest.NewRequest("GET", tt.target, nil))
		if tt.want == "" {
			if !errors.Is(err, executor.ErrInvalidKey) || !strings.Contains(err.Error(), strconv.Quote(tt.expr)) {
				t.Errorf("%s %s: Key = %q, %v; want ErrInvalidKey naming the expression", tt.expr, tt.target, got, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%s %s: Key = %q, %v; want %q", tt.expr, tt.target, got, err, tt.want)
		}
	}
}

// FuzzConversions checks |int and |float against the parsers handlers use:
// a string strconv.ParseInt(s, 10, 64) reads is keyed by |int as that
// value, one strconv.ParseFloat(s, 64) reads as a finite value is keyed by
// |float as that value, and both keys are fixed points.
func FuzzConversions(f *testing.F) {
	for _, s := range []string{"42", "042", "+42", "-0", "4.2e1", "0x2Ap0", "4_2", "9007199254740993", "1e400", "NaN", "", "-"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if k, err := intPart(s); err == nil {
			if again, err := intPart(k); err != nil || again != k {
				t.Fatalf("intPart(%q) = %q, then %q, %v", s, k, again, err)
			}
		}
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			if k, err := intPart(s); err != nil || k != strconv.FormatInt(n, 10) {
				t.Fatalf("ParseInt(%q) = %d, intPart = %q, %v", s, n, k, err)
			}
		}
		fl, err := strconv.ParseFloat(s, 64)
		k, kerr := floatPart(s)
		if err != nil || math.IsInf(fl, 0) || math.IsNaN(fl) {
			if kerr == nil {
				t.Fatalf("floatPart(%q) = %q for what ParseFloat reads as %v, %v", s, k, fl, err)
			}
			return
		}
		if kerr != nil {
			t.Fatalf("floatPart(%q) = %v, ParseFloat reads %v", s, kerr, fl)
		}
		if kf, err := strconv.ParseFloat(k, 64); err != nil || kf != fl {
			t.Fatalf("floatPart(%q) = %q, which reads as %v, want %v", s, k, kf, fl)
		}
		if again, err := floatPart(k); err != nil || again != k {
			t.Fatalf("floatPart(%q) = %q, then %q, %v", s, k, again, err)
		}
	})
}
