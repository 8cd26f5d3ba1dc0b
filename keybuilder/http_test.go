package keybuilder

import (
	"bytes"
	"errors"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/lock4go/lock4go/executor"
)

func TestNewHTTP_malformed(t *testing.T) {
	tests := []struct {
		name  string
		exprs []string
		opts  []Option
	}{
		{"unknown source", []string{"body.id"}, nil},
		{"no name", []string{"query"}, nil},
		{"empty name", []string{"path."}, nil},
		{"argument to ip", []string{"ip.v4"}, nil},
		{"argument to method", []string{"method.x"}, nil},
		{"empty json segment", []string{"json.a..b"}, nil},
		{"trailing json dot", []string{"json.a."}, nil},
		{"bad header name", []string{"header.X Id"}, nil},
		{"unregistered func", []string{"func.tenant"}, nil},
		{"grpc source", []string{"md.x"}, nil},
		{"bad cidr", []string{"ip"}, []Option{WithTrustedProxies("10.0.0.0/33")}},
		{"bad ip header", []string{"ip"}, []Option{WithClientIPHeader("X Real")}},
		{"max key length above the Template's", []string{"ip"}, []Option{WithMaxKeyLen(1025)}},
		{"bad max len", nil, []Option{WithMaxKeyLen(0)}},
		{"bad body size", nil, []Option{WithMaxBodyBytes(-1)}},
		{"nil func", nil, []Option{WithHTTPFunc("x", nil)}},
		{"max key length below the hashing length", nil, []Option{WithMaxKeyLen(511)}},
		{"unknown conversion", []string{"json.id|num"}, nil},
		{"empty conversion", []string{"query.id|"}, nil},
		{"two conversions", []string{"json.id|int|float"}, nil},
		{"conversion of ip", []string{"ip|int"}, nil},
		{"conversion of method", []string{"method|float"}, nil},
		{"conversion without a name", []string{"path|int"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewHTTP("lock4go", "name", tt.exprs, tt.opts...)
			if !errors.Is(err, executor.ErrInvalidConfig) {
				t.Fatalf("err = %v, want ErrInvalidConfig", err)
			}
		})
	}
}

func multipartBody(t *testing.T, fields map[string]string) (string, []byte) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	fw, err := w.CreateFormFile("id", "id.txt") // a file part named id: ignored
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(fw, "file")
	for k, v := range fields {
		if err := w.WriteField(k, v); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	return w.FormDataContentType(), buf.Bytes()
}

func TestHTTP_Key(t *testing.T) {
	mpType, mpBody := multipartBody(t, map[string]string{"id": "m7"})
	mpOtherType, mpOther := multipartBody(t, map[string]string{"x": "1"})
	upper := WithHTTPFunc("upper", func(r *http.Request) (string, error) {
		return strings.ToUpper(r.URL.Query().Get("t")), nil
	})
	tests := []struct {
		name    string
		exprs   []string
		opts    []Option
		req     func() *http.Request
		want    string // key, or "" when wantErr is set
		wantErr error
	}{
		{"no exprs", nil, nil, get("/"), "lock4go:order", nil},
		{"path", []string{"path.id"}, nil, func() *http.Request {
			r := httptest.NewRequest("GET", "/orders/42", nil)
			r.SetPathValue("id", "42")
			return r
		}, "lock4go:order#42", nil},
		{"path not routed", []string{"path.id"}, nil, get("/orders/42"), "", executor.ErrInvalidConfig},
		{"path wildcard not in the route", []string{"path.id"}, nil, func() *http.Request {
			r := httptest.NewRequest("GET", "/orders/42", nil)
			r.Pattern = "GET /orders/{orderId}"
			r.SetPathValue("orderId", "42")
			return r
		}, "", executor.ErrInvalidConfig},
		{"path empty rest", []string{"path.rest"}, nil, func() *http.Request {
			r := httptest.NewRequest("GET", "/files/", nil)
			r.Pattern = "GET /files/{rest...}"
			return r
		}, "", executor.ErrInvalidKey},
		{"path part too long", []string{"path.id"}, []Option{WithMaxPartLen(3)}, func() *http.Request {
			r := httptest.NewRequest("GET", "/orders/1234", nil)
			r.SetPathValue("id", "1234")
			return r
		}, "", executor.ErrInvalidKey},
		{"ip unix socket", []string{"ip"}, nil, remote(get("/"), "@"), "", executor.ErrInvalidKey},
		{"ip unix socket unnamed", []string{"ip"}, nil, remote(get("/"), ""), "", executor.ErrInvalidKey},
		{"path as int", []string{"path.id|int"}, nil, func() *http.Request {
			r := httptest.NewRequest("GET", "/orders/+0042", nil)
			r.SetPathValue("id", "+0042")
			return r
		}, "lock4go:order#42", nil},
		{"header as float", []string{"header.X-Amount|float"}, nil, withHeader(get("/"), "X-Amount", "1.50"), "lock4go:order#1.5", nil},
		{"cookie not an int", []string{"cookie.n|int"}, nil, withHeader(get("/"), "Cookie", "n=x1"), "", executor.ErrInvalidKey},
		{"form as int", []string{"form.id|int"}, nil, post("application/x-www-form-urlencoded", "id=007"), "lock4go:order#7", nil},
		{"json string as int", []string{"json.id|int"}, nil, post("application/json", `{"id":"0042"}`), "lock4go:order#42", nil},
		{"json number as int", []string{"json.id|int"}, nil, post("application/json", `{"id":4.2e1}`), "lock4go:order#42", nil},
		{"json fraction as int", []string{"json.id|int"}, nil, post("application/json", `{"id":42.5}`), "", executor.ErrInvalidKey},
		{"json bool as int", []string{"json.ok|int"}, nil, post("application/json", `{"ok":true}`), "", executor.ErrInvalidKey},
		{"json empty string as int", []string{"json.id|int"}, nil, post("application/json", `{"id":""}`), "", executor.ErrInvalidKey},
		{"json big int as float", []string{"json.id|float"}, nil, post("application/json", `{"id":9007199254740993}`), "lock4go:order#9007199254740992", nil},
		{"json string as float", []string{"json.id|float"}, nil, post("application/json", `{"id":"4.2e1"}`), "lock4go:order#42", nil},
		{"json name with a bar is a conversion", []string{"json.a|float"}, nil, post("application/json", `{"a|float":1,"a":"2.0"}`), "lock4go:order#2", nil},
		{"query", []string{"query.id"}, nil, get("/?id=7"), "lock4go:order#7", nil},
		{"query repeated alike", []string{"query.id"}, nil, get("/?id=7&id=7"), "lock4go:order#7", nil},
		{"query repeated with another value", []string{"query.id"}, nil, get("/?id=7&id=8"), "", executor.ErrInvalidKey},
		{"query escaped", []string{"query.id"}, nil, get("/?id=a%3Ab%23c"), "lock4go:order#a%3Ab%23c", nil},
		{"query empty", []string{"query.id"}, nil, get("/?id="), "", executor.ErrInvalidKey},
		{"query also in a urlencoded body", []string{"query.id"}, nil, postTo("/?id=8", "application/x-www-form-urlencoded", "id=7"), "", executor.ErrInvalidKey},
		{"query also empty in a urlencoded body", []string{"query.id"}, nil, postTo("/?id=8", "application/x-www-form-urlencoded", "x=1&id="), "", executor.ErrInvalidKey},
		{"query also in a multipart body", []string{"query.id"}, nil, postTo("/?id=8", mpType, string(mpBody)), "", executor.ErrInvalidKey},
		{"query also in a body parsed upstream", []string{"query.id"}, nil, parsed(postTo("/?id=8", "application/x-www-form-urlencoded", "id=7")), "", executor.ErrInvalidKey},
		{"query, form body too big to check", []string{"query.id"}, []Option{WithMaxBodyBytes(4)}, postTo("/?id=8", "application/x-www-form-urlencoded", "x=12345"), "", executor.ErrInvalidKey},
		{"query, urlencoded body without it", []string{"query.id"}, nil, postTo("/?id=8", "application/x-www-form-urlencoded", "x=1"), "lock4go:order#8", nil},
		{"query, multipart body with a file part of that name", []string{"query.id"}, nil, postTo("/?id=8", mpOtherType, string(mpOther)), "lock4go:order#8", nil},
		{"query also in a json body", []string{"query.id"}, nil, postTo("/?id=8", "application/json", `{"id":7}`), "", executor.ErrInvalidKey},
		{"query, json body with it null", []string{"query.id"}, nil, postTo("/?id=8", "application/json", `{"id":null}`), "lock4go:order#8", nil},
		{"query, json body too big to check", []string{"query.id"}, []Option{WithMaxBodyBytes(4)}, postTo("/?id=8", "application/json", `{"x":1}`), "", executor.ErrInvalidKey},
		{"query, json body not json", []string{"query.id"}, nil, postTo("/?id=8", "application/json", `{"x":`), "", executor.ErrInvalidKey},
		{"query, body parsed upstream without it", []string{"query.id"}, nil, parsed(postTo("/?id=8", "application/x-www-form-urlencoded", "x=1")), "lock4go:order#8", nil},
		{"header", []string{"header.x-order-id"}, nil, withHeader(get("/"), "X-Order-Id", "o1"), "lock4go:order#o1", nil},
		{"header missing", []string{"header.X-Order-Id"}, nil, get("/"), "", executor.ErrInvalidKey},
		{"cookie", []string{"cookie.session"}, nil, withHeader(get("/"), "Cookie", "a=1; session=s9"), "lock4go:order#s9", nil},
		{"cookie missing", []string{"cookie.session"}, nil, get("/"), "", executor.ErrInvalidKey},
		{"form urlencoded", []string{"form.id"}, nil, post("application/x-www-form-urlencoded", "id=f1&x=2"), "lock4go:order#f1", nil},
		{"form ignores query", []string{"form.id"}, nil, post("application/x-www-form-urlencoded", "x=2"), "", executor.ErrInvalidKey},
		{"form multipart", []string{"form.id"}, nil, post(mpType, string(mpBody)), "lock4go:order#m7", nil},
		{"form wrong type", []string{"form.id"}, nil, post("application/json", `{"id":1}`), "", executor.ErrInvalidKey},
		{"form also in query", []string{"form.id"}, nil, postTo("/?id=2", "application/x-www-form-urlencoded", "id=1"), "", executor.ErrInvalidKey},
		{"form multipart also in query", []string{"form.id"}, nil, postTo("/?id=2", mpType, string(mpBody)), "", executor.ErrInvalidKey},
		{"json names differing in case", []string{"json.orderId"}, nil, post("application/json", `{"orderId":"1","ORDERID":"2"}`), "", executor.ErrInvalidKey},
		{"json duplicate name", []string{"json.order.id"}, nil, post("application/json", `{"order":{"id":"1","id":"2"}}`), "", executor.ErrInvalidKey},
		{"json case elsewhere is fine", []string{"json.id"}, nil, post("application/json", `{"id":"1","x":1,"X":2}`), "lock4go:order#1", nil},
		{"json name matched ignoring case", []string{"json.orderId"}, nil, post("application/json", `{"ORDERID":"9"}`), "lock4go:order#9", nil},
		{"json trailing data", []string{"json.id"}, nil, post("application/json", `{"id":1} {"id":2}`), "", executor.ErrInvalidKey},
		{"json integer in exponent form", []string{"json.id"}, nil, post("application/json", `{"id":1e20}`), "lock4go:order#100000000000000000000", nil},
		{"json integer in digits", []string{"json.id"}, nil, post("application/json", `{"id":100000000000000000000}`), "lock4go:order#100000000000000000000", nil},
		{"json negative zero", []string{"json.id"}, nil, post("application/json", `{"id":-0.0}`), "lock4go:order#0", nil},
		{"json fraction beyond float64", []string{"json.id"}, nil, post("application/json", `{"id":0.10000000000000000001}`), "lock4go:order#0.1", nil},
		{"json number out of range", []string{"json.id"}, nil, post("application/json", `{"id":1e400}`), "", executor.ErrInvalidKey},
		{"json long integer literal", []string{"json.id"}, nil, post("application/json", `{"id":1`+strings.Repeat("0", 300)+"."+strings.Repeat("0", 100)+`}`), "", executor.ErrInvalidKey},
		{"json long literal of a small value", []string{"json.id"}, nil, post("application/json", `{"id":0.`+strings.Repeat("0", 395)+`1e400}`), "lock4go:order#10000", nil},
		{"json string", []string{"json.order.id"}, nil, post("application/json", `{"order":{"id":"o:1"}}`), "lock4go:order#o%3A1", nil},
		{"json int", []string{"json.id"}, nil, post("application/json", `{"id":42}`), "lock4go:order#42", nil},
		{"json float integral", []string{"json.id"}, nil, post("application/json", `{"id":4.2e1}`), "lock4go:order#42", nil},
		{"json float", []string{"json.id"}, nil, post("application/json", `{"id":0.5}`), "lock4go:order#0.5", nil},
		{"json big int", []string{"json.id"}, nil, post("application/json", `{"id":123456789012345678901234567890}`), "lock4go:order#123456789012345678901234567890", nil},
		{"json bool", []string{"json.ok"}, nil, post("application/json", `{"ok":false}`), "lock4go:order#false", nil},
		{"json array index", []string{"json.items.1.sku"}, nil, post("application/json", `{"items":[{"sku":"a"},{"sku":"b"}]}`), "lock4go:order#b", nil},
		{"json index out of range", []string{"json.items.2"}, nil, post("application/json", `{"items":[1]}`), "", executor.ErrInvalidKey},
		{"json null", []string{"json.id"}, nil, post("application/json", `{"id":null}`), "", executor.ErrInvalidKey},
		{"json object", []string{"json.order"}, nil, post("application/json", `{"order":{"id":1}}`), "", executor.ErrInvalidKey},
		{"json array", []string{"json.ids"}, nil, post("application/json", `{"ids":[1]}`), "", executor.ErrInvalidKey},
		{"json missing", []string{"json.id"}, nil, post("application/json", `{}`), "", executor.ErrInvalidKey},
		{"json not json", []string{"json.id"}, nil, post("application/json", `id=1`), "", executor.ErrInvalidKey},
		{"json no body", []string{"json.id"}, nil, get("/"), "", executor.ErrInvalidKey},
		{"json too big", []string{"json.id"}, []Option{WithMaxBodyBytes(8)}, post("application/json", `{"id":"123456"}`), "", executor.ErrInvalidKey},
		{"json two parts one read", []string{"json.a", "json.b"}, nil, post("application/json", `{"a":1,"b":"x"}`), "lock4go:order#1:x", nil},
		{"ip", []string{"ip"}, nil, remote(get("/"), "192.0.2.1:1234"), "lock4go:order#192.0.2.1", nil},
		{"ip v6", []string{"ip"}, nil, remote(get("/"), "[2001:db8::1]:1234"), "lock4go:order#2001%3Adb8%3A%3A1", nil},
		{"ip ignores xff", []string{"ip"}, nil, remote(withHeader(get("/"), "X-Forwarded-For", "203.0.113.9"), "192.0.2.1:1"), "lock4go:order#192.0.2.1", nil},
		{"ip untrusted proxy", []string{"ip"}, []Option{WithTrustedProxies("10.0.0.0/8")},
			remote(withHeader(get("/"), "X-Forwarded-For", "203.0.113.9"), "192.0.2.1:1"), "lock4go:order#192.0.2.1", nil},
		{"ip trusted proxy", []string{"ip"}, []Option{WithTrustedProxies("10.0.0.0/8")},
			remote(withHeader(get("/"), "X-Forwarded-For", "1.1.1.1, 203.0.113.9, 10.0.0.2"), "10.0.0.1:1"), "lock4go:order#203.0.113.9", nil},
		{"ip trusted proxy real ip", []string{"ip"}, []Option{WithTrustedProxies("10.0.0.1"), WithClientIPHeader("x-real-ip")},
			remote(withHeader(get("/"), "X-Real-IP", "203.0.113.7"), "10.0.0.1:1"), "lock4go:order#203.0.113.7", nil},
		{"ip real ip ignored by default", []string{"ip"}, []Option{WithTrustedProxies("10.0.0.1")},
			remote(withHeader(get("/"), "X-Real-IP", "203.0.113.7"), "10.0.0.1:1"), "lock4go:order#10.0.0.1", nil},
		{"ip client's own XFF ignored when the proxy sets X-Real-IP", []string{"ip"}, []Option{WithTrustedProxies("10.0.0.1"), WithClientIPHeader("X-Real-IP")},
			remote(withHeader(withHeader(get("/"), "X-Real-IP", "203.0.113.9"), "X-Forwarded-For", "1.1.1.1"), "10.0.0.1:1"), "lock4go:order#203.0.113.9", nil},
		{"ip trusted proxy garbage", []string{"ip"}, []Option{WithTrustedProxies("10.0.0.0/8")},
			remote(withHeader(get("/"), "X-Forwarded-For", "nonsense"), "10.0.0.1:1"), "", executor.ErrInvalidKey},
		{"method", []string{"method"}, nil, get("/"), "lock4go:order#GET", nil},
		{"func", []string{"func.upper", "query.t"}, []Option{upper}, get("/?t=ab"), "lock4go:order#AB:ab", nil},
		{"func empty", []string{"func.upper"}, []Option{upper}, get("/"), "", executor.ErrInvalidKey},
		{"long key hashed", []string{"query.id"}, nil, get("/?id=" + strings.Repeat("9", 600)), "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := NewHTTP("lock4go", "order", tt.exprs, tt.opts...)
			if err != nil {
				t.Fatal(err)
			}
			got, err := b.Key(tt.req())
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Key = %q, %v; want error %v", got, err, tt.wantErr)
				}
				if !strings.Contains(err.Error(), tt.exprs[len(tt.exprs)-1]) && !strings.Contains(err.Error(), tt.exprs[0]) {
					t.Errorf("error %q does not name the expression", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.want == "" { // hashed
				if !strings.HasPrefix(got, "lock4go:order##") || len(got) > 100 {
					t.Fatalf("Key = %q, want a hashed key", got)
				}
				return
			}
			if got != tt.want {
				t.Fatalf("Key = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestHTTP_Key_pattern(t *testing.T) {
	b, err := NewHTTP("lock4go", "", []string{"path.id"})
	if err != nil {
		t.Fatal(err)
	}
	var got string
	var gotErr error
	mux := http.NewServeMux()
	mux.HandleFunc("POST /orders/{id}", func(w http.ResponseWriter, r *http.Request) {
		got, gotErr = b.Key(r)
	})
	mux.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/orders/a%23b", nil))
	if gotErr != nil || got != "lock4go:POST /orders/%7Bid%7D#a%23b" {
		t.Fatalf("Key = %q, %v", got, gotErr)
	}
	// Outside a ServeMux there is no pattern: a configuration error.
	if _, err := b.Key(httptest.NewRequest("POST", "/orders/1", nil)); !errors.Is(err, executor.ErrInvalidConfig) {
		t.Fatalf("err = %v, want ErrInvalidConfig", err)
	}
}

func TestHTTP_Key_bodyRestored(t *testing.T) {
	for _, tt := range []struct {
		name, ctype, expr, body string
		max                     int64
	}{
		{"json", "application/json", "json.id", `{"id":"x1","pad":"` + strings.Repeat("p", 5000) + `"}`, DefaultMaxBodyBytes},
		{"form", "application/x-www-form-urlencoded", "form.id", "id=x1&pad=" + strings.Repeat("p", 5000), DefaultMaxBodyBytes},
		{"too big", "application/json", "json.id", `{"id":"x1","pad":"` + strings.Repeat("p", 5000) + `"}`, 100},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b, err := NewHTTP("lock4go", "order", []string{tt.expr}, WithMaxBodyBytes(tt.max))
			if err != nil {
				t.Fatal(err)
			}
			closed := false
			r := httptest.NewRequest("POST", "/", nil)
			r.Body = closeSpy{Reader: strings.NewReader(tt.body), closed: &closed}
			r.Header.Set("Content-Type", tt.ctype)
			_, keyErr := b.Key(r)
			if (keyErr != nil) != (tt.max < int64(len(tt.body))) {
				t.Fatalf("Key err = %v", keyErr)
			}
			if tt.ctype != "application/json" {
				if err := r.ParseForm(); err != nil || r.PostForm.Get("id") != "x1" || len(r.PostForm.Get("pad")) != 5000 {
					t.Errorf("handler's ParseForm after Key: %v, %q", err, r.PostForm.Get("id"))
				}
			} else {
				got, err := io.ReadAll(r.Body)
				if err != nil || string(got) != tt.body {
					t.Fatalf("handler reads %d bytes (%v), want the %d-byte body", len(got), err, len(tt.body))
				}
			}
			r.Body.Close()
			if !closed {
				t.Error("closing the restored body does not close the original")
			}
		})
	}
}

type closeSpy struct {
	io.Reader
	closed *bool
}

func (c closeSpy) Close() error { *c.closed = true; return nil }

func get(target string) func() *http.Request {
	return func() *http.Request { return httptest.NewRequest("GET", target, nil) }
}

func post(ctype, body string) func() *http.Request { return postTo("/", ctype, body) }

func postTo(target, ctype, body string) func() *http.Request {
	return func() *http.Request {
		r := httptest.NewRequest("POST", target, strings.NewReader(body))
		r.Header.Set("Content-Type", ctype)
		return r
	}
}

// parsed calls ParseForm on the request, as middleware upstream may do.
func parsed(f func() *http.Request) func() *http.Request {
	return func() *http.Request { r := f(); _ = r.ParseForm(); return r }
}

func withHeader(f func() *http.Request, k, v string) func() *http.Request {
	return func() *http.Request { r := f(); r.Header.Add(k, v); return r }
}

func remote(f func() *http.Request, addr string) func() *http.Request {
	return func() *http.Request { r := f(); r.RemoteAddr = addr; return r }
}
