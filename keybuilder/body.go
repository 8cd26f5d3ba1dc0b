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
	if r.ContentLength > max {
		// Refused unread: the handler still gets the whole body.
		return nil, fmt.Errorf("body of %d bytes is larger than %d bytes: %w", r.ContentLength, max, executor.ErrInvalidKey)
	}
	data, err := readAll(io.LimitReader(r.Body, max+1), r.ContentLength)
	r.Body = restoredBody{Reader: io.MultiReader(bytes.NewReader(data), r.Body), Closer: r.Body}
	if err != nil {
		return nil, fmt.Errorf("reading the body: %w: %w", executor.ErrInvalidKey, err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("body is larger than %d bytes: %w", max, executor.ErrInvalidKey)
	}
	return &body{data: data}, nil
}

// readAll reads rd to its end into a buffer sized for a body of n bytes
// (unknown when n < 0): one allocation for a body of the announced length.
func readAll(rd io.Reader, n int64) ([]byte, error) {
	if n < 0 {
		return io.ReadAll(rd)
	}
	buf := make([]byte, n+1) // +1: a body longer than announced shows
	k, err := io.ReadFull(rd, buf)
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return buf[:k], nil
	case err != nil:
		return buf[:k], err
	}
	rest, err := io.ReadAll(rd) // longer than announced: the rest as it comes
	return append(buf, rest...), err
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
		b.form, err = multipartForm(b.data, params["boundary"])
		if err != nil {
			return "", false, err
		}
		return b.form.Get(name), b.form.Has(name), nil
	}
	return "", false, nil
}

// isForm reports whether r's body is of a type r.FormValue reads:
// urlencoded or multipart.
func isForm(r *http.Request) bool {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && (mt == "application/x-www-form-urlencoded" || mt == "multipart/form-data")
}

// multipartForm returns the non-file fields of a multipart body, read as
// http.Request.ParseMultipartForm reads them for the handler: with the
// same limits on parts and headers (1000 parts unless GODEBUG
// multipartmaxparts says otherwise), so a body the handler cannot parse
// is not keyed either, and the cost is bounded by the body cap.
func multipartForm(data []byte, boundary string) (url.Values, error) {
	if boundary == "" {
		return nil, fmt.Errorf("multipart body without boundary: %w", executor.ErrInvalidKey)
	}
	f, err := multipart.NewReader(bytes.NewReader(data), boundary).ReadForm(int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("malformed multipart body (%v): %w", err, executor.ErrInvalidKey)
	}
	defer f.RemoveAll() // nothing on disk: the whole body fits in memory
	return url.Values(f.Value), nil
}
