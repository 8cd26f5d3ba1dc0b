package keybuilder_test

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"

	"github.com/lock4go/lock4go/keybuilder"
)

// A reader is one common way a handler reads the id of a request. read
// returns the values the handler may act on: none when it refuses the
// request (a decode error, 415) or finds no id, several when the handler
// itself may pick any of them (echo's case-insensitive fallback ranges
// over a map). A value is a string, int64, float64, []byte or bool, as the
// handler's field holds it; [valueKey] keys it as every builder does.
type reader struct {
	name string
	read func(r *http.Request) []any
}

// unmodelled is the value of a handler that reads the id from a body the
// tests do not decode (YAML, TOML, msgpack, protobuf, BSON): it equals no
// key, so any key built for such a request is a bypass.
const unmodelled = "\x00a value the body's decoder finds"

// maxMemory is the handlers' r.ParseMultipartForm limit (net/http's and
// gin's default).
const maxMemory = 32 << 20

// The net/http readers.
var (
	queryGet      = reader{"r.URL.Query().Get", func(r *http.Request) []any { return str(r.URL.Query().Get("id")) }}
	formValue     = reader{"r.FormValue", func(r *http.Request) []any { return str(r.FormValue("id")) }}
	postFormValue = reader{"r.PostFormValue", func(r *http.Request) []any { return str(r.PostFormValue("id")) }}
	// formLast and postFormLast keep the last value of a repeated field, as
	// encoding/json keeps the last duplicate member (and some form
	// decoders the last value).
	formLast = reader{"last of r.Form", func(r *http.Request) []any {
		if !parseMultipart(r) {
			return nil
		}
		return last(r.Form["id"])
	}}
	postFormLast = reader{"last of r.PostForm", func(r *http.Request) []any {
		if !parseMultipart(r) {
			return nil
		}
		return last(r.PostForm["id"])
	}}
)

// parseMultipart parses r's forms as a handler checking errors does:
// r.ParseMultipartForm, a body that is not multipart being no error.
func parseMultipart(r *http.Request) bool {
	err := r.ParseMultipartForm(maxMemory)
	return err == nil || errors.Is(err, http.ErrNotMultipart)
}

func str(s string) []any {
	if s == "" {
		return nil
	}
	return []any{s}
}

func last(vs []string) []any {
	if len(vs) == 0 {
		return nil
	}
	return str(vs[len(vs)-1])
}

// The encoding/json readers: json.NewDecoder(r.Body).Decode, as handlers,
// gin and echo decode (the first value of the body; what follows it is
// not read).
var (
	jsonString = jsonStruct("string", func(v *struct {
		ID string `json:"id"`
	}) any {
		return v.ID
	})
	jsonInt64 = jsonStruct("int64", func(v *struct {
		ID int64 `json:"id"`
	}) any {
		return v.ID
	})
	jsonFloat64 = jsonStruct("float64", func(v *struct {
		ID float64 `json:"id"`
	}) any {
		return v.ID
	})
	jsonBytes = jsonStruct("[]byte", func(v *struct {
		ID []byte `json:"id"`
	}) any {
		return v.ID
	})
	// jsonMap reads m["id"]: the exact name, the last duplicate.
	jsonMap = reader{"encoding/json map[string]any", func(r *http.Request) []any {
		var m map[string]any
		if json.NewDecoder(r.Body).Decode(&m) != nil {
			return nil
		}
		switch v := m["id"].(type) {
		case string:
			return str(v)
		case float64, bool:
			return []any{v}
		}
		return nil
	}}
)

// jsonNested and jsonNestedMap read order.id: the field of a nested
// struct (encoding/json merges a repeated "order" into it) and the member
// of a nested map (a repeated "order" replaces it).
var (
	jsonNested = reader{"encoding/json struct{Order struct{ID string}}", func(r *http.Request) []any {
		var v struct {
			Order struct {
				ID string `json:"id"`
			} `json:"order"`
		}
		if json.NewDecoder(r.Body).Decode(&v) != nil {
			return nil
		}
		return str(v.Order.ID)
	}}
	jsonNestedMap = reader{"encoding/json map[string]any, order.id", func(r *http.Request) []any {
		var m map[string]any
		if json.NewDecoder(r.Body).Decode(&m) != nil {
			return nil
		}
		order, _ := m["order"].(map[string]any)
		id, _ := order["id"].(string)
		return str(id)
	}}
)

// formGet is r.ParseForm then r.Form.Get: no multipart body.
var formGet = reader{"r.ParseForm, r.Form.Get", func(r *http.Request) []any {
	if r.ParseForm() != nil {
		return nil
	}
	return str(r.Form.Get("id"))
}}

// jsonStruct returns the reader that decodes the body into a *T, a
// struct whose id field has the type typ, and reads the id with id.
func jsonStruct[T any](typ string, id func(*T) any) reader {
	return reader{"encoding/json struct{ID " + typ + "}", func(r *http.Request) []any {
		var v T
		if json.NewDecoder(r.Body).Decode(&v) != nil {
			return nil
		}
		return nonZero(id(&v))
	}}
}

// nonZero returns v, or none when it is the zero value: a handler that
// decoded no id (an absent member leaves the field zero) refuses.
func nonZero(v any) []any {
	switch x := v.(type) {
	case string:
		return str(x)
	case int64:
		if x == 0 {
			return nil
		}
	case float64:
		if x == 0 {
			return nil
		}
	case []byte:
		if x == nil {
			return nil
		}
	}
	return []any{v}
}

// bound is the struct gin's and echo's readers bind: the id under every
// tag they read.
type bound struct {
	ID string `query:"id" form:"id" json:"id" xml:"id"`
}

// ginBind is gin's c.ShouldBind(&v) (binding.Default): a GET binds the
// form (the query), other methods pick the binding by the Content-Type
// up to its first space or semicolon, case-sensitively; anything
// unlisted, a missing type included, binds the form: the query and, for
// net/http's form bodies, the body.
var ginBind = reader{"gin ShouldBind", func(r *http.Request) []any {
	ct := r.Header.Get("Content-Type")
	if i := strings.IndexAny(ct, " ;"); i >= 0 {
		ct = ct[:i]
	}
	if r.Method == http.MethodGet {
		ct = "GET"
	}
	switch ct {
	case "application/json":
		return ginJSON.read(r)
	case "application/xml", "text/xml":
		var v bound
		if xml.NewDecoder(r.Body).Decode(&v) != nil {
			return nil
		}
		return str(v.ID)
	case "application/x-protobuf", "application/x-msgpack", "application/msgpack", "application/x-yaml",
		"application/yaml", "application/toml", "application/bson":
		if r.ContentLength == 0 {
			return nil // nothing to decode
		}
		return []any{unmodelled}
	case "multipart/form-data":
		if r.ParseMultipartForm(maxMemory) != nil {
			return nil
		}
		return first(r.MultipartForm.Value["id"])
	}
	if r.ParseForm() != nil || !parseMultipart(r) {
		return nil
	}
	return first(r.Form["id"])
}}

// ginJSON is gin's c.ShouldBindJSON: the body as JSON, whatever its type.
var ginJSON = reader{"gin ShouldBindJSON", func(r *http.Request) []any {
	var v bound
	if json.NewDecoder(r.Body).Decode(&v) != nil {
		return nil
	}
	return str(v.ID)
}}

func first(vs []string) []any {
	if len(vs) == 0 {
		return nil
	}
	return str(vs[0])
}

// echoBind is echo's c.Bind(&v) (DefaultBinder): a GET, DELETE or HEAD
// binds the query first; then a body (ContentLength not 0) by the prefix
// of its Content-Type, case-sensitively: JSON and XML decoded over what
// the query set, forms from r.Form (query and body); any other type is
// 415. A form or query name is matched exactly, or else by any name equal
// ignoring case (echo ranges over the map: any of them may win).
var echoBind = reader{"echo Bind", func(r *http.Request) []any {
	var vals []string // possible values so far; nil: none set
	switch r.Method {
	case http.MethodGet, http.MethodDelete, http.MethodHead:
		vals = echoData(r.URL.Query(), vals)
	}
	if r.ContentLength == 0 {
		return strs(vals)
	}
	ct := r.Header.Get("Content-Type")
	switch {
	case strings.HasPrefix(ct, "application/json"), strings.HasPrefix(ct, "application/xml"), strings.HasPrefix(ct, "text/xml"):
		return echoDecode(r, ct, vals)
	case strings.HasPrefix(ct, "application/x-www-form-urlencoded"), strings.HasPrefix(ct, "multipart/form-data"):
		var err error
		if strings.HasPrefix(ct, "multipart/form-data") {
			err = r.ParseMultipartForm(maxMemory)
		} else {
			err = r.ParseForm()
		}
		if err != nil {
			return nil
		}
		return strs(echoData(r.Form, vals))
	}
	return nil // 415
}}

// echoDecode decodes a JSON or XML body over each value the query may
// have set.
func echoDecode(r *http.Request, ct string, vals []string) []any {
	if vals == nil {
		vals = []string{""}
	}
	body, err := readAll(r)
	if err != nil {
		return nil
	}
	var out []string
	for _, q := range vals {
		v := bound{ID: q}
		if strings.HasPrefix(ct, "application/json") {
			err = json.NewDecoder(strings.NewReader(body)).Decode(&v)
		} else {
			err = xml.NewDecoder(strings.NewReader(body)).Decode(&v)
		}
		if err != nil {
			return nil
		}
		out = append(out, v.ID)
	}
	return strs(out)
}

func readAll(r *http.Request) (string, error) {
	b, err := io.ReadAll(r.Body)
	return string(b), err
}

// echoData is echo's bindData for the id: the first value of the exact
// name, else of any name equal to it ignoring case; vals when none.
func echoData(data map[string][]string, vals []string) []string {
	if vs, ok := data["id"]; ok {
		return []string{vs[0]}
	}
	var out []string
	for k, vs := range data {
		if strings.EqualFold(k, "id") {
			out = append(out, vs[0])
		}
	}
	if out == nil {
		return vals
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func strs(vs []string) []any {
	var out []any
	for _, v := range vs {
		out = append(out, str(v)...)
	}
	return out
}

// valueKey returns the key a route keyed with the conversion conv ("",
// "|int", "|float" or "|base64") must give a request whose handler acts on
// the value v of the id: v formatted as every builder formats it (through
// keybuilder.Fields, which keys Go values: floats and bytes in one form
// per value), then read with conv as a header value would be; "" when
// that keys nothing. A conversion may put several values under one key
// (|float: "07" and 7), which locks more, never less.
func valueKey(v any, conv string) string {
	var part string
	var err error
	switch x := v.(type) {
	case string:
		part = x
	case int64:
		part = strconv.FormatInt(x, 10)
	case bool:
		part = strconv.FormatBool(x)
	case float64:
		part, err = partOf(floatKey(struct{ ID float64 }{x}))
	case []byte:
		part, err = partOf(bytesKey(struct{ ID []byte }{x}))
	}
	if err != nil || part == "" {
		return ""
	}
	kb := must(keybuilder.NewHTTP("lock4go", "pay", []string{"header.X-Id" + conv}))
	r := httptest.NewRequest("GET", "/", nil)
	r.Header.Set("X-Id", part)
	k, err := kb.Key(r)
	if err != nil {
		return ""
	}
	return k
}

// partOf returns the raw part of a key built by Fields ("lock4go:pay#…"
// with a part that needs no escaping: digits, letters, '+', '/', '=',
// '.', '-').
func partOf(key string, err error) (string, error) {
	if err != nil {
		return "", err
	}
	_, part, _ := strings.Cut(key, "#")
	return part, nil
}

var (
	floatKey = must(keybuilder.Fields[struct{ ID float64 }]("lock4go", "pay", []string{"ID"}))
	bytesKey = must(keybuilder.Fields[struct{ ID []byte }]("lock4go", "pay", []string{"ID"}))
)

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
