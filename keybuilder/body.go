package keybuilder

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"

	"github.com/lock4go/lock4go/executor"
)

// body is a request body read once for json. and form. expressions.
type body struct {
	data []byte
	form url.Values
}

// restoredBody yields the bytes already read, then the rest of the original
// body, and closes the original body.
type restoredBody struct {
	io.Reader
	io.Closer
}

// readBody reads at most max bytes of r.Body and puts back a reader of the
// same stream, so the handler sees the body unchanged.
func readBody(r *http.Request, max int64) (*body, error) {
	if r.Body == nil || r.Body == http.NoBody {
		return &body{}, nil
	}
	data, err := io.ReadAll(io.LimitReader(r.Body, max+1))
	r.Body = restoredBody{Reader: io.MultiReader(bytes.NewReader(data), r.Body), Closer: r.Body}
	if err != nil {
		return nil, fmt.Errorf("reading the body: %w: %w", executor.ErrInvalidKey, err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("body is larger than %d bytes: %w", max, executor.ErrInvalidKey)
	}
	return &body{data: data}, nil
}

// formValue returns the first value of a urlencoded or multipart body field.
// A name that the query string has too is an error: r.FormValue prefers the
// body's value for urlencoded bodies but the query's for multipart ones, so
// the handler could act on another value than the one locked.
func (b *body) formValue(r *http.Request, name string) (string, error) {
	if r.URL != nil && r.URL.Query().Has(name) {
		return "", fmt.Errorf("form field %q is in the query string too: ambiguous: %w", name, executor.ErrInvalidKey)
	}
	v, _, err := b.formField(r, name)
	return v, err
}

// formField returns the first value of the urlencoded or multipart body
// field name (not a file part), and whether the body has that field; a body
// of another type has none.
func (b *body) formField(r *http.Request, name string) (string, bool, error) {
	if r.PostForm != nil && len(b.data) == 0 {
		return r.PostForm.Get(name), r.PostForm.Has(name), nil // parsed (and consumed) upstream
	}
	if b.form != nil {
		return b.form.Get(name), b.form.Has(name), nil
	}
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil {
		return "", false, nil
	}
	switch mt {
	case "application/x-www-form-urlencoded":
		b.form, err = url.ParseQuery(string(b.data))
		if err != nil {
			return "", false, fmt.Errorf("malformed form body: %w", executor.ErrInvalidKey)
		}
		return b.form.Get(name), b.form.Has(name), nil
	case "multipart/form-data":
		return multipartValue(b.data, params["boundary"], name)
	}
	return "", false, nil
}

// isForm reports whether r's body is of a type r.FormValue reads:
// urlencoded or multipart.
func isForm(r *http.Request) bool {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && (mt == "application/x-www-form-urlencoded" || mt == "multipart/form-data")
}

// multipartValue returns the first non-file part named name, and whether
// there is one.
func multipartValue(data []byte, boundary, name string) (string, bool, error) {
	if boundary == "" {
		return "", false, fmt.Errorf("multipart body without boundary: %w", executor.ErrInvalidKey)
	}
	mr := multipart.NewReader(bytes.NewReader(data), boundary)
	for {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return "", false, nil
		}
		if err != nil {
			return "", false, fmt.Errorf("malformed multipart body: %w", executor.ErrInvalidKey)
		}
		if p.FormName() != name || p.FileName() != "" {
			continue
		}
		v, err := io.ReadAll(p)
		if err != nil {
			return "", false, fmt.Errorf("malformed multipart body: %w", executor.ErrInvalidKey)
		}
		return string(v), true, nil
	}
}
