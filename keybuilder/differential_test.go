package keybuilder_test

import (
	"math/rand/v2"
	"net/url"
	"strings"
	"testing"
)

// pairings are the key expressions of a route and the readers a handler of
// that route may use: a route keyed query.id whose handler calls
// r.FormValue("id") or binds the query with gin or echo, and so on. A
// reader of another source (json.id for a handler calling r.FormValue) is
// a misconfiguration, not a key builder's bypass, and is not paired; nor
// is a reader with the expression docs/keys.md warns against for its type
// (json.id for a map[string]any, which sees numbers as float64: the
// "Numbers" traps, shown by TestHTTP_Key_agreesWithHandler).
var pairings = []struct {
	expr    string
	readers []reader
}{
	{"query.id", []reader{queryGet, formValue, formGet, formLast, ginBind, echoBind}},
	{"form.id", []reader{formValue, postFormValue, formGet, formLast, postFormLast, ginBind, echoBind}},
	{"json.order.id", []reader{jsonNested, jsonNestedMap}},
	{"json.id", []reader{jsonString, ginBind, echoBind, ginJSON}},
	{"json.id|int", []reader{jsonInt64}},
	{"json.id|float", []reader{jsonFloat64, jsonMap}},
	{"json.id|base64", []reader{jsonBytes}},
}

// differential checks one request against every pairing: a key built for
// it must be the key of every value a paired reader acts on.
func differential(t *testing.T, q request) {
	t.Helper()
	for _, p := range pairings {
		if b := bypasses(t, p.expr, q, p.readers...); len(b) > 0 {
			t.Errorf("%s %s (Content-Type %q) %q, keyed by %s:\n%s", q.method, q.target, q.ctype, q.body, p.expr, strings.Join(b, "\n"))
		}
	}
}

// The request space of the differential test: methods, targets (query
// strings), Content-Types and bodies, every body sent with every type.
var (
	diffMethods = []string{"POST", "PUT", "PATCH", "GET", "DELETE", "HEAD", "post", "get", "OPTIONS"}
	diffTargets = []string{
		"/pay", "/pay?id=7", "/pay?id=8", "/pay?id=7&id=8", "/pay?id=7&id=7", "/pay?ID=8", "/pay?id=", "/pay?id=7;id=8",
		"/pay?Id=8&id=7", "/pay?i%64=8", "/pay?i%64=8&id=7", "/pay?id=7&x=%zz",
	}
	diffTypes = []string{
		noType, "", "application/x-www-form-urlencoded", "application/x-www-form-urlencoded; charset=utf-8",
		"application/x-www-form-urlencoded; x", "Application/X-WWW-Form-Urlencoded", "application/x-www-form-urlencoded; a=1; a=2",
		"application/x-www-form-urlencodedx", "application/json", "application/json; charset=utf-8", "application/json;;",
		"application/json;x", "Application/JSON", "application/vnd.api+json", "application/json-patch+json", "application/jsonx",
		"application/json\t; charset=utf-8", " application/json", "application/json, text/plain",
		"multipart/form-data; boundary=B", "multipart/form-data; boundary=B; x", "Multipart/Form-Data; boundary=B",
		"multipart/form-data", "multipart/mixed; boundary=B", "multipart/form-data; boundary=B; boundary=C",
		"multipart/form-data;boundary=B", "application/xml", "text/xml; charset=utf-8", "text/plain", "application/x-yaml",
		"application/toml",
	}
	diffBodies = []string{
		"", "id=7", "id=8", "id=7&id=8", "id=7&id=7", "ID=8", "x=1", "id=7&x=%zz", "id=", "id=7;x=1", "Id=8&id=7",
		`{"id":"7"}`, `{"id":"8"}`, `{"ID":"8"}`, `{"id":"7","ID":"8"}`, `{"id":"7","id":"8"}`, `{"id":7}`, `{"id":7.0}`,
		`{"id":null}`, `{"id":"7","x":"&id=8&"}`, `{"x":"&id=8&","id":"7"}`, `{"id":"7"} {"id":"8"}`, `{"id":"7"}x`, `[]`,
		`{"Id":"8"}`, `{"i\u0064":"8"}`, `{"\u0130d":"8"}`, `{"ıd":"8","id":"7"}`, `{"id":"AA=="}`, `{"id":"AB=="}`,
		`{"id":"A\nA=="}`, `{"id":"AA"}`, `{"id":"_w"}`, `{"id":9007199254740993}`, `{"id":"07"}`, `{"id":true}`,
		`{"id":""}`, `{"id":{}}`, `{"id":"7","x":{"id":"8"}}`, "\ufeff" + `{"id":"7"}`,
		multipartOf("id", "7"), multipartOf("id", "7", "id", "8"), multipartOf("id", "7", "id", "7"), multipartOf("ID", "8"),
		multipartOf("x", "1"), multipartOf("id", ""), "--B\r\nContent-Disposition: form-data; name=\"id\"; filename=\"f\"\r\n\r\n8\r\n--B--\r\n",
		"--C\r\nContent-Disposition: form-data; name=\"id\"\r\n\r\n8\r\n--C--\r\n", "--B\r\nbroken",
		"<r><id>7</id></r>", "<r><id>8</id></r>", "id: 7", "i%64=8&id=7", "id=7&i%64=8", "id=%37", "id=7+",
		`{"order":{"id":"7"}}`, `{"order":{"id":"7"},"order":{"id":"8"}}`, `{"order":{"id":"7"},"order":{"x":"8"}}`,
		`{"Order":{"id":"8"},"order":{"id":"7"}}`, `{"order":{"id":"7","ID":"8"}}`, `{"order":null,"order":{"id":"7"}}`,
		`{"order":{"id":"7"},"Order":null}`,
	}
)

// TestHTTP_Key_differential sends requests from the whole space of
// methods (lower case ones too), query strings, Content-Types and bodies,
// with a Content-Length or without (chunked): every body with every type,
// for POST and GET and two query strings, and a sample of the rest
// through every key source and the readers a handler of it may use:
// r.URL.Query, r.FormValue, r.PostFormValue, the last value of r.Form and
// r.PostForm, encoding/json into structs (string, int64, float64, []byte
// fields) and maps, and gin's and echo's binding by Content-Type. A key
// must be the key of every value a reader acts on (one key per value the
// handler sees); a request no reader agrees on must be refused (400).
func TestHTTP_Key_differential(t *testing.T) {
	for _, m := range []string{"POST", "GET"} {
		for _, target := range []string{"/pay", "/pay?id=8"} {
			for _, ct := range diffTypes {
				for _, body := range diffBodies {
					differential(t, request{m, target, ct, body, false})
				}
			}
		}
	}
	r := rand.New(rand.NewPCG(32, 1))
	n := 3000
	if testing.Short() {
		n = 300
	}
	for range n {
		differential(t, randomRequest(r))
	}
}

func randomRequest(r *rand.Rand) request {
	pick := func(s []string) string { return s[r.IntN(len(s))] }
	return request{pick(diffMethods), pick(diffTargets), pick(diffTypes), pick(diffBodies), r.IntN(4) == 0}
}

// FuzzHTTP_Key_differential is the differential test over fuzzed requests:
// a method, a query string, a Content-Type and a body. Its seed corpus
// (below, and testdata/fuzz) runs in every go test: the requests of the
// bypasses found so far.
func FuzzHTTP_Key_differential(f *testing.F) {
	for _, q := range []request{
		{"POST", "/pay?id=8", "application/x-www-form-urlencoded; x", "id=7", false},
		{"POST", "/pay", "application/x-www-form-urlencoded", `{"id":7,"x":"&id=8&"}`, false},
		{"POST", "/pay?id=8", "application/vnd.api+json", `{"id":"7"}`, false},
		{"GET", "/pay?id=8", "application/json", `{"id":"7"}`, false},
		{"POST", "/pay?id=8", noType, `{"id":"7"}`, false},
		{"POST", "/pay?id=8", "Application/JSON", `{"id":"7"}`, false},
		{"POST", "/pay?id=8", "application/json", `{"ID":"7"}`, false},
		{"GET", "/pay?id=8", "application/xml", "<r><id>7</id></r>", false},
		{"GET", "/pay?id=7&id=8", noType, "", false},
		{"POST", "/pay", "application/x-www-form-urlencoded", "id=7&id=8", false},
		{"POST", "/pay", "multipart/form-data; boundary=B", multipartOf("id", "7", "id", "8"), false},
		{"PUT", "/pay", "application/json", `{"id":"AB=="}`, false},
	} {
		f.Add(q.method, q.target, q.ctype, q.body)
	}
	f.Fuzz(func(t *testing.T, method, target, ctype, body string) {
		if _, err := url.ParseRequestURI(target); err != nil || !validMethod(method) || !strings.HasPrefix(target, "/pay") ||
			strings.ContainsAny(target, " #\r\n\x00") || strings.ContainsAny(ctype, "\r\n\x00") {
			return // not a request a server hands a handler
		}
		differential(t, request{method, target, ctype, body, false})
		differential(t, request{method, target, ctype, body, true})
	})
}

// validMethod reports whether m is a method token httptest.NewRequest
// accepts.
func validMethod(m string) bool {
	if m == "" {
		return false
	}
	for _, c := range m {
		if (c < 'A' || c > 'Z') && (c < 'a' || c > 'z') {
			return false
		}
	}
	return true
}
