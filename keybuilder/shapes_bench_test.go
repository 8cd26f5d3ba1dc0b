package keybuilder_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/lock4go/lock4go/keybuilder"
)

// bodyCap is the default body cap: every shape fills it.
const bodyCap = keybuilder.DefaultMaxBodyBytes

// fill repeats unit between head and tail, units separated by sep, up to
// n bytes in all.
func fill(head, unit, sep, tail string, n int) []byte {
	var b bytes.Buffer
	b.WriteString(head)
	for i := 0; b.Len()+len(unit)+len(sep)+len(tail) <= n; i++ {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(unit)
	}
	b.WriteString(tail)
	return b.Bytes()
}

// shape is a body of about bodyCap bytes that makes a naive extractor
// work hard, with the expression that finds its id.
type shape struct {
	name, expr, contentType string
	body                    []byte
	wantErr                 bool // a body no handler could parse either
}

// jsonShapes are the JSON bodies of the adversarial probe of issue 24 and
// more: the id after an array of zeros, after many members, before many
// 1-character members, after deep nesting, after a long escaped string, in
// an array after many elements, and an id of the body's whole size.
func jsonShapes() []shape {
	deep := strings.Repeat("[", 5000) + strings.Repeat("]", 5000)
	zeros := fill(`[`, "0", ",", ``, bodyCap-20)
	n := bytes.Count(zeros, []byte(","))
	shapes := []shape{
		{name: "zerosBefore", expr: "json.id", body: fill(`{"a":[`, "0", ",", `],"id":42}`, bodyCap)},
		{name: "membersBefore", expr: "json.id", body: fill(`{`, `"m":0`, ",", `,"id":42}`, bodyCap)},
		{name: "oneCharAfter", expr: "json.id", body: fill(`{"id":42,`, `"a":1`, ",", `}`, bodyCap)},
		{name: "deepBefore", expr: "json.id", body: fill(`{"a":[`, deep, ",", `],"id":42}`, bodyCap)},
		{name: "escapedStringBefore", expr: "json.id", body: fill(`{"s":"`, `\u00e9\n`, "", `","id":42}`, bodyCap)},
		{name: "arrayIndex", expr: "json." + strconv.Itoa(n+1) + ".id", body: append(zeros, `,{"id":42}]`...)},
		{name: "escapedNamesBefore", expr: "json.id", body: fill(`{`, `"\u0069\u0064x":0`, ",", `,"id":42}`, bodyCap)},
		{name: "longID", expr: "json.id", body: fill(`{"id":"`, `x`, "", `"}`, bodyCap)},
	}
	for i := range shapes {
		shapes[i].contentType = jsonType
	}
	return shapes
}

// jsonType is the Content-Type of the JSON shapes.
const jsonType = "application/json"

// formShapes are urlencoded and multipart bodies with many fields before
// the id: as many as the standard library parses (10000 urlencoded
// fields, 1000 multipart parts), and more multipart parts than that,
// which the handler could not parse either (wantErr).
func formShapes() []shape {
	multi := func(n, size int) []byte {
		var mp bytes.Buffer
		w := multipart.NewWriter(&mp)
		w.SetBoundary(boundary)
		for range n {
			w.WriteField("m", strings.Repeat("0", size))
		}
		w.WriteField("id", "42")
		w.Close()
		return mp.Bytes()
	}
	ct := "multipart/form-data; boundary=" + boundary
	return []shape{
		{name: "urlencoded", expr: "form.id", contentType: "application/x-www-form-urlencoded",
			body: fill(``, "m="+strings.Repeat("0", 120), "&", "&id=42", bodyCap)},
		{name: "multipart", expr: "form.id", contentType: ct, body: multi(998, 900)},
		{name: "multipartTooManyParts", expr: "form.id", contentType: ct, body: multi(10000, 1), wantErr: true},
	}
}

// boundary is the multipart boundary of the form shapes.
const boundary = "b0undary"

// BenchmarkKeyShapes builds the key of each shape through an HTTP builder
// ("key/…"), beside json.Valid on the same body ("valid/…", the floor the
// JSON scanner is held to: at most 3x) or, for forms, the standard
// library's own parsing ("parse/…": url.ParseQuery, or
// multipart.Reader.ReadForm).
func BenchmarkKeyShapes(b *testing.B) {
	for _, s := range append(jsonShapes(), formShapes()...) {
		kb, err := keybuilder.NewHTTP("lock4go", "pay", []string{s.expr}, keybuilder.WithMaxPartLen(bodyCap))
		if err != nil {
			b.Fatal(err)
		}
		if len(s.body) > bodyCap {
			b.Fatalf("%s: %d bytes, over the cap", s.name, len(s.body))
		}
		b.Run("baseline/"+s.name, func(b *testing.B) {
			b.SetBytes(int64(len(s.body)))
			for b.Loop() {
				if err := baseline(s); (err != nil) != s.wantErr {
					b.Fatal(err)
				}
			}
		})
		b.Run("key/"+s.name, func(b *testing.B) {
			b.SetBytes(int64(len(s.body)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := kb.Key(shapeRequest(s)); (err != nil) != s.wantErr {
					b.Fatal(err)
				}
			}
		})
	}
}

func shapeRequest(s shape) *http.Request {
	r, _ := http.NewRequest("POST", "/pay", bytes.NewReader(s.body))
	if s.contentType != "" {
		r.Header.Set("Content-Type", s.contentType)
	}
	return r
}

// baseline is what the standard library spends on the body: json.Valid,
// url.ParseQuery, or reading a multipart form.
func baseline(s shape) error {
	switch {
	case s.contentType == jsonType:
		if !json.Valid(s.body) {
			return fmt.Errorf("%s: not JSON", s.name)
		}
	case strings.HasPrefix(s.contentType, "multipart/"):
		r := shapeRequest(s)
		if err := r.ParseMultipartForm(bodyCap); err != nil {
			return err
		}
	default:
		if _, err := url.ParseQuery(string(s.body)); err != nil {
			return err
		}
	}
	return nil
}

// BenchmarkKey_small builds keys of the small requests most routes see:
// a JSON body of a few members, a urlencoded form, and a query parameter
// beside a form body (which the builder checks for the same name).
func BenchmarkKey_small(b *testing.B) {
	cases := []struct {
		name, expr, contentType, target, body string
	}{
		{"json", "json.order.id", jsonType, "/pay", `{"amount":1250,"currency":"EUR","order":{"id":"ord_8f3a","lines":[1,2,3]},"note":"gift"}`},
		{"form", "form.id", "application/x-www-form-urlencoded", "/pay", "amount=1250&currency=EUR&id=ord_8f3a&note=gift"},
		{"queryOnForm", "query.id", "application/x-www-form-urlencoded", "/pay?id=ord_8f3a", "amount=1250&currency=EUR&note=gift"},
	}
	for _, c := range cases {
		kb, err := keybuilder.NewHTTP("lock4go", "pay", []string{c.expr})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r, _ := http.NewRequest("POST", c.target, strings.NewReader(c.body))
				r.Header.Set("Content-Type", c.contentType)
				if _, err := kb.Key(r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
