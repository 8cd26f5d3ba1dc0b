package keybuilder_test

import (
	"errors"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/keybuilder"
)

// TestHTTP_Key_base64: "|base64" keys the bytes encoding/json (standard
// alphabet, padded, line breaks skipped) or protojson (URL-safe too,
// padding optional) decodes, in one form: every spelling of one value
// gives one key, the key Fields and grpclock give that []byte. Without it
// the spellings are keyed as they are: the trap the conversion closes.
func TestHTTP_Key_base64(t *testing.T) {
	for _, c := range []struct {
		bytes     []byte
		spellings []string
	}{
		{[]byte{0}, []string{"AA==", "AB==", "A\nA==", "AA\r\n==", "AA", "AB"}},
		{[]byte{0xff}, []string{"/w==", "_w==", "_w", "/w", "/x=="}},
		{[]byte("hello"), []string{"aGVsbG8=", "aGVsbG8", "aGVs\nbG8="}},
	} {
		want := must(bytesKey(struct{ ID []byte }{c.bytes}))
		plain := map[string]bool{}
		for _, s := range c.spellings {
			body := `{"id":` + strconv.Quote(s) + `}`
			if got := jsonKey(t, "json.id|base64", body); got != want {
				t.Errorf("json.id|base64 of %s: %q, want %q", body, got, want)
			}
			plain[jsonKey(t, "json.id", body)] = true
		}
		if len(plain) != len(c.spellings) {
			t.Errorf("json.id keyed %d spellings of %x with %d keys: the trap is gone, update docs/keys.md", len(c.spellings), c.bytes, len(plain))
		}
	}
	for body, missing := range map[string]bool{
		`{"id":"not base64!"}`: false, `{"id":"AA=="}x`: false, `{"id":7}`: false, `{"id":true}`: false,
		`{"id":""}`: true, `{"id":"\n"}`: true, `{"id":"A-/A"}`: false,
	} {
		kb := must(keybuilder.NewHTTP("lock4go", "pay", []string{"json.id|base64"}))
		_, err := kb.Key(request{"POST", "/pay", "application/json", body, false}.new())
		var pe *keybuilder.PartError
		if !errors.As(err, &pe) || pe.Missing != missing || !errors.Is(err, executor.ErrInvalidKey) {
			t.Errorf("json.id|base64 of %s: %v, want a PartError (missing %v)", body, err, missing)
		}
	}
	kb := must(keybuilder.NewHTTP("lock4go", "pay", []string{"query.t|base64"}))
	if got, err := kb.Key(httptest.NewRequest("GET", "/pay?t=_w", nil)); err != nil || got != must(bytesKey(struct{ ID []byte }{[]byte{0xff}})) {
		t.Errorf("query.t|base64 of _w: %q, %v", got, err)
	}
}

func jsonKey(t *testing.T, expr, body string) string {
	t.Helper()
	kb := must(keybuilder.NewHTTP("lock4go", "pay", []string{expr}))
	k, err := kb.Key(request{"POST", "/pay", "application/json", body, false}.new())
	if err != nil {
		t.Fatalf("%s of %s: %v", expr, body, err)
	}
	return k
}

// TestKeys_oneKeyWhateverTheLimit: builders with different length limits
// (WithMaxKeyLen) and Join build one key for one prefix, name and parts,
// hashed or not, so that a lock taken by hand with Join excludes a route
// built with a larger limit, and two deployments with different limits
// exclude each other.
func TestKeys_oneKeyWhateverTheLimit(t *testing.T) {
	for _, n := range []int{10, 490, 497, 498, 499, 600, 1000, 5000} {
		part := strings.Repeat("7", n)
		want, err := keybuilder.Join("lock4go", "pay", part)
		if err != nil {
			t.Fatal(err)
		}
		for _, limit := range []int{keybuilder.DefaultMaxKeyLen, 700, 1024} {
			opt := keybuilder.WithMaxKeyLen(limit)
			kb := must(keybuilder.NewHTTP("lock4go", "pay", []string{"query.id"}, opt))
			got, err := kb.Key(httptest.NewRequest("GET", "/pay?id="+part, nil))
			if err != nil || got != want {
				t.Errorf("%d-byte part, NewHTTP with WithMaxKeyLen(%d): %q, %v; Join gives %q", n, limit, got, err, want)
			}
			fk := must(keybuilder.Fields[struct{ ID string }]("lock4go", "pay", []string{"ID"}, opt))
			if got, err := fk(struct{ ID string }{part}); err != nil || got != want {
				t.Errorf("%d-byte part, Fields with WithMaxKeyLen(%d): %q, %v; Join gives %q", n, limit, got, err, want)
			}
		}
	}
	// A limit below the hashing length would need other keys: refused.
	if _, err := keybuilder.NewHTTP("lock4go", "pay", nil, keybuilder.WithMaxKeyLen(100)); !errors.Is(err, executor.ErrInvalidConfig) {
		t.Errorf("WithMaxKeyLen(100): %v, want ErrInvalidConfig", err)
	}
	// A long name needs a larger limit for its hashed keys, and gets it.
	name := strings.Repeat("n", 500)
	if _, err := keybuilder.NewHTTP("lock4go", name, nil); !errors.Is(err, executor.ErrInvalidConfig) {
		t.Errorf("a 500-byte name with the default limit: %v, want ErrInvalidConfig", err)
	}
	kb := must(keybuilder.NewHTTP("lock4go", name, []string{"query.id"}, keybuilder.WithMaxKeyLen(1024)))
	got, err := kb.Key(httptest.NewRequest("GET", "/pay?id=1", nil))
	if want, _ := keybuilder.Join("lock4go", name, "1"); err != nil || got != want || len(got) > 1024 {
		t.Errorf("a 500-byte name: %q, %v; Join gives %q", got, err, want)
	}
}
