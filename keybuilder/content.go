package keybuilder

import (
	"fmt"
	"mime"
	"net/http"
	"strings"

	"github.com/lock4go/lock4go/executor"
)

// What a handler reads from a body depends on its Content-Type and method,
// and the common readers do not agree: net/http's form parsing, gin's
// ShouldBind (binding.Default) and echo's Bind each have their rules. The
// functions here decide as they do, so that a key part is read from the
// body only when every one of them reads the same value there, and a
// request is refused when one of them may read another.

// contentType returns r's Content-Type, as r.Header.Get returns it,
// without canonicalising the constant name on every call.
func contentType(r *http.Request) string {
	if vs := r.Header["Content-Type"]; len(vs) > 0 {
		return vs[0]
	}
	return ""
}

// bodyForm is how net/http parses a body as a form, for r.FormValue,
// r.PostFormValue and r.ParseMultipartForm.
type bodyForm uint8

const (
	formNone       bodyForm = iota
	formURLEncoded          // parsePostForm reads it: POST, PUT or PATCH, urlencoded
	formMultipart           // multipartReader reads it: any method, multipart/form-data
)

// formOf returns how net/http parses r's body as a form, and the boundary
// of a multipart one. A urlencoded body is parsed for POST, PUT and PATCH
// only, with the media type mime.ParseMediaType returns even with
// mime.ErrInvalidMediaParameter, as parsePostForm takes it; a multipart
// body for any method, only when the Content-Type parses cleanly and has
// a boundary, as multipartReader requires.
func formOf(r *http.Request) (bodyForm, string) {
	ct := contentType(r)
	base, _, _ := strings.Cut(ct, ";")
	base = strings.TrimSpace(base)
	switch {
	case strings.EqualFold(base, "application/x-www-form-urlencoded"):
		if r.Method != http.MethodPost && r.Method != http.MethodPut && r.Method != http.MethodPatch {
			return formNone, ""
		}
		// A duplicate parameter makes the media type "": not a form.
		if mt, _, _ := mime.ParseMediaType(ct); mt == "application/x-www-form-urlencoded" {
			return formURLEncoded, ""
		}
	case strings.EqualFold(base, "multipart/form-data"):
		mt, params, err := mime.ParseMediaType(ct)
		if boundary, ok := params["boundary"]; ok && err == nil && mt == "multipart/form-data" {
			return formMultipart, boundary
		}
	}
	return formNone, ""
}

// bindType returns the Content-Type up to its first space or semicolon:
// what gin compares, case-sensitively, with the types it binds.
func bindType(ct string) string {
	if i := strings.IndexAny(ct, " ;"); i >= 0 {
		return ct[:i]
	}
	return ct
}

// checkJSONRequest returns nil when every common reader reads r's body as
// JSON, and otherwise an error wrapping executor.ErrInvalidKey: the body
// is read as JSON by gin's ShouldBind only when the Content-Type is
// exactly application/json (parameters aside) and the method is not GET;
// any other type (a +json one, upper case, none at all) and every GET are
// bound from the query (and a form body) instead, so the handler could
// act on another value than the one locked. echo's Bind and a handler
// decoding r.Body read such a body as JSON too.
func checkJSONRequest(r *http.Request) error {
	if r.Method == http.MethodGet {
		return errJSONGet
	}
	if ct := contentType(r); bindType(ct) != "application/json" {
		return fmt.Errorf("Content-Type %.60q is not application/json: binders read such a body as a form or not at all: %w",
			ct, executor.ErrInvalidKey)
	}
	return nil
}

var errJSONGet = fmt.Errorf("the body of a GET: gin's ShouldBind reads a GET's query, not its body: %w", executor.ErrInvalidKey)

// bodyRival is what a handler may read, instead of (or over) a query
// parameter, from r's body.
type bodyRival uint8

const (
	rivalNone   bodyRival = iota
	rivalForm             // a form field: r.FormValue prefers it, gin and echo bind it
	rivalJSON             // a JSON member: gin and echo bind it over the query
	rivalOpaque           // a body binders decode and the builder does not
)

// opaqueTypes are the Content-Types, as [bindType] gives them, whose
// bodies gin's ShouldBind decodes into the handler's struct instead of
// the query, and that the builder cannot look into.
var opaqueTypes = map[string]bool{
	"application/xml": true, "text/xml": true, "application/x-protobuf": true, "application/x-msgpack": true,
	"application/msgpack": true, "application/x-yaml": true, "application/yaml": true, "application/toml": true,
	"application/bson": true,
}

// rivalOf returns what a handler may read from r's body in place of a
// query parameter: a form field (net/http's rules, [formOf]); a JSON
// member (echo's Bind decodes a body whose Content-Type starts with
// application/json over the query, and gin's ShouldBind reads an
// application/json body instead of it); or, for a non-empty body of a type
// gin or echo decode and the builder does not (XML, YAML, TOML, msgpack,
// protobuf, BSON), anything.
func rivalOf(r *http.Request, form bodyForm) bodyRival {
	if form != formNone {
		return rivalForm
	}
	ct := contentType(r)
	switch {
	case strings.HasPrefix(ct, "application/json"):
		return rivalJSON
	case r.ContentLength == 0 || r.Body == nil || r.Body == http.NoBody:
		return rivalNone
	case opaqueTypes[bindType(ct)], strings.HasPrefix(ct, "application/xml"), strings.HasPrefix(ct, "text/xml"):
		return rivalOpaque
	}
	return rivalNone
}
