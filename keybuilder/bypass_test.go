package keybuilder_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/keybuilder"
)

// A request is the description of one HTTP request, built afresh for the
// key builder and for each reader (readers consume the body).
type request struct {
	method, target string
	ctype          string // Content-Type; noType: none
	body           string
	chunked        bool // no Content-Length (-1), as a chunked body has
}

// noType is the ctype of a request without a Content-Type header.
const noType = "\x00none"

func (q request) new() *http.Request {
	var r *http.Request
	if q.body == "" {
		r = httptest.NewRequest(q.method, q.target, nil)
	} else {
		r = httptest.NewRequest(q.method, q.target, strings.NewReader(q.body))
	}
	if q.ctype != noType {
		r.Header.Set("Content-Type", q.ctype)
	}
	if q.chunked && q.body != "" {
		r.ContentLength = -1
	}
	return r
}

// bypasses returns how the readers see another id than the key of q built
// with expr: one line per reader that acts on a value whose key is not
// the request's. A request refused with ErrInvalidKey (400) has none; any
// other error is a test failure.
func bypasses(t *testing.T, expr string, q request, readers ...reader) []string {
	t.Helper()
	kb, err := keybuilder.NewHTTP("lock4go", "pay", []string{expr})
	if err != nil {
		t.Fatal(err)
	}
	key, err := kb.Key(q.new())
	if err != nil {
		if !errors.Is(err, executor.ErrInvalidKey) {
			t.Fatalf("%s of %+v: %v, want a key or ErrInvalidKey", expr, q, err)
		}
		return nil
	}
	_, conv, _ := strings.Cut(expr, "|")
	if conv != "" {
		conv = "|" + conv
	}
	var out []string
	for _, rd := range readers {
		for _, v := range rd.read(q.new()) {
			if vk := valueKey(v, conv); vk != "" && vk != key {
				out = append(out, rd.name+" acts on "+vk+" under the lock of "+key)
			}
		}
	}
	return out
}

// TestHTTP_Key_bypasses holds each request of issue 32 (and those the
// differential test found) on which a handler acted on another id than the
// one locked: each must now be refused or keyed by the value the handler
// sees.
func TestHTTP_Key_bypasses(t *testing.T) {
	const form, mp = "application/x-www-form-urlencoded", "multipart/form-data; boundary=B"
	for _, c := range []struct {
		name    string
		expr    string
		q       request
		readers []reader
	}{
		{"form type with a malformed parameter", "query.id", request{"POST", "/pay?id=8", form + "; x", "id=7", false}, []reader{formValue, ginBind, echoBind}},
		{"json. of a form body", "json.id", request{"POST", "/pay", form, `{"id":7,"x":"&id=8&"}`, false}, []reader{ginBind, echoBind}},
		{"json. of a +json body, which gin binds from the query", "json.id", request{"POST", "/pay?id=8", "application/vnd.api+json", `{"id":"7"}`, false}, []reader{ginBind}},
		{"json. of a GET, which gin binds from the query", "json.id", request{"GET", "/pay?id=8", "application/json", `{"id":"7"}`, false}, []reader{ginBind}},
		{"json. of a body without a type", "json.id", request{"POST", "/pay?id=8", noType, `{"id":"7"}`, false}, []reader{ginBind}},
		{"json. of Application/JSON, which gin binds from the query", "json.id", request{"POST", "/pay?id=8", "Application/JSON", `{"id":"7"}`, false}, []reader{ginBind}},
		{"query. beside a JSON body with the id (echo GET)", "query.id", request{"GET", "/pay?id=8", "application/json", `{"id":"7"}`, false}, []reader{echoBind}},
		{"query. beside a JSON body with the id (gin POST)", "query.id", request{"POST", "/pay?id=8", "application/json", `{"ID":"7"}`, false}, []reader{ginBind}},
		{"query. beside an XML body with the id", "query.id", request{"GET", "/pay?id=8", "application/xml", `<r><id>7</id></r>`, false}, []reader{echoBind}},
		{"query. beside a YAML body", "query.id", request{"POST", "/pay?id=8", "application/x-yaml", "id: 7", false}, []reader{ginBind}},
		{"repeated query parameter", "query.id", request{"GET", "/pay?id=7&id=8", noType, "", false}, []reader{formLast}},
		{"repeated form field", "form.id", request{"POST", "/pay", form, "id=7&id=8", false}, []reader{postFormLast}},
		{"repeated multipart field", "form.id", request{"POST", "/pay", mp, multipartOf("id", "7", "id", "8"), false}, []reader{postFormLast}},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, m := range []string{c.q.method, "PUT"} {
				q := c.q
				if q.method == "POST" {
					q.method = m
				}
				if b := bypasses(t, c.expr, q, c.readers...); len(b) > 0 {
					t.Errorf("%s %s (%q) %q, keyed by %s:\n%s", q.method, q.target, q.ctype, q.body, c.expr, strings.Join(b, "\n"))
				}
			}
		})
	}
}

// TestHTTP_Key_mapIntKeys: encoding/json decodes the object member names
// "7" and "07" into the same map[int]T key, the last one winning; a
// numeric segment must not pick one of two such members.
func TestHTTP_Key_mapIntKeys(t *testing.T) {
	byInt := reader{"map[int]string", func(r *http.Request) []any {
		var v struct{ Prices map[int]string }
		if json.NewDecoder(r.Body).Decode(&v) != nil {
			return nil
		}
		return str(v.Prices[7])
	}}
	q := request{"POST", "/pay", "application/json", `{"prices":{"7":"a","07":"b"}}`, false}
	if b := bypasses(t, "json.prices.7", q, byInt); len(b) > 0 {
		t.Error(strings.Join(b, "\n"))
	}
}

// TestHTTP_Key_readAsHandlers: requests that the handlers all read alike
// are keyed, not refused.
func TestHTTP_Key_readAsHandlers(t *testing.T) {
	const form = "application/x-www-form-urlencoded"
	for _, c := range []struct {
		expr string
		q    request
		want string
	}{
		{"form.id", request{"POST", "/pay", form + "; x", "id=7", false}, "7"},
		{"form.id", request{"PATCH", "/pay", "Application/X-WWW-Form-Urlencoded; charset=utf-8", "id=7", false}, "7"},
		{"query.id", request{"GET", "/pay?id=8", form, "id=7", false}, "8"},    // net/http reads no GET body
		{"query.id", request{"DELETE", "/pay?id=8", form, "id=7", false}, "8"}, // nor a DELETE's
		{"query.id", request{"GET", "/pay?id=7&id=7", noType, "", false}, "7"},
		{"query.id", request{"POST", "/pay?id=8", "multipart/form-data; boundary=B; x", multipartOf("id", "7"), false}, "8"}, // not multipart to net/http
		{"query.id", request{"POST", "/pay?id=8", "application/json", `{"x":"7"}`, false}, "8"},
		{"query.id", request{"POST", "/pay?id=8", "text/plain", "id=7", false}, "8"},
		{"json.id", request{"POST", "/pay", "application/json; charset=utf-8", `{"id":"7"}`, false}, "7"},
		{"json.id", request{"PUT", "/pay?id=8", "application/json;x", `{"id":"7"}`, false}, "7"},
		{"json.id", request{"DELETE", "/pay", "application/json", `{"id":"7"}`, false}, "7"},
	} {
		kb, err := keybuilder.NewHTTP("lock4go", "pay", []string{c.expr})
		if err != nil {
			t.Fatal(err)
		}
		got, err := kb.Key(c.q.new())
		if want := valueKey(c.want, ""); err != nil || got != want {
			t.Errorf("%s of %+v: Key = %q, %v; want %q", c.expr, c.q, got, err, want)
		}
	}
}

// multipartOf returns a multipart/form-data body with boundary B and the
// fields name, value, name, value….
func multipartOf(kv ...string) string {
	var b strings.Builder
	for i := 0; i+1 < len(kv); i += 2 {
		b.WriteString("--B\r\nContent-Disposition: form-data; name=\"" + kv[i] + "\"\r\n\r\n" + kv[i+1] + "\r\n")
	}
	b.WriteString("--B--\r\n")
	return b.String()
}
