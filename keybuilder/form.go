package keybuilder

import (
	"bytes"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/url"

	"github.com/lock4go/lock4go/executor"
)

// noForm is the (empty, never written) form of a body that net/http does
// not parse as a form.
var noForm = url.Values{}

// formValue returns the value of a urlencoded or multipart body field.
// A name that the query string has too is an error: r.FormValue prefers
// the body's value for urlencoded bodies but the query's for multipart
// ones, so the handler could act on another value than the one locked.
func (b *body) formValue(r *http.Request, name string, st *httpState) (string, error) {
	if st.queryValues(r).Has(name) {
		return "", fmt.Errorf("form field %q is in the query string too: ambiguous: %w", name, executor.ErrInvalidKey)
	}
	vs, err := b.formField(r, name, st)
	if err != nil {
		return "", err
	}
	return single(vs, "form field", name)
}

// formField returns the values of the body field name (not file parts)
// as net/http parses them for the handler (see [formOf]): none for a body
// it does not parse as a form.
func (b *body) formField(r *http.Request, name string, st *httpState) ([]string, error) {
	if r.PostForm != nil && len(b.data) == 0 {
		return r.PostForm[name], nil // parsed (and consumed) upstream
	}
	if b.form == nil {
		form, boundary := st.formOf(r)
		switch form {
		case formURLEncoded:
			f, err := url.ParseQuery(string(b.data))
			if err != nil {
				return nil, fmt.Errorf("malformed form body: %w", executor.ErrInvalidKey)
			}
			b.form = f
		case formMultipart:
			f, err := multipartForm(b.data, boundary)
			if err != nil {
				return nil, err
			}
			b.form = f
		default:
			b.form = noForm
		}
	}
	return b.form[name], nil
}

// single returns the value of a form field or query parameter given
// several times with one value, "" when it is absent, and an error when
// its values differ: r.FormValue and gin read the first, a decoder may
// keep the last (as encoding/json keeps the last duplicate member).
func single(vs []string, what, name string) (string, error) {
	if len(vs) == 0 {
		return "", nil
	}
	for _, v := range vs[1:] {
		if v != vs[0] {
			return "", fmt.Errorf("%s %q is given %d times with different values: ambiguous: %w", what, name, len(vs), executor.ErrInvalidKey)
		}
	}
	return vs[0], nil
}

// multipartForm returns the non-file fields of a multipart body, read as
// http.Request.ParseMultipartForm reads them for the handler: with the
// same limits on parts and headers (1000 parts unless GODEBUG
// multipartmaxparts says otherwise), so a body the handler cannot parse
// is not keyed either, and the cost is bounded by the body cap.
func multipartForm(data []byte, boundary string) (url.Values, error) {
	f, err := multipart.NewReader(bytes.NewReader(data), boundary).ReadForm(int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("malformed multipart body (%v): %w", err, executor.ErrInvalidKey)
	}
	defer f.RemoveAll() // nothing on disk: the whole body fits in memory
	return url.Values(f.Value), nil
}
