package keybuilder

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/lock4go/lock4go/executor"
)

// body is a request body read once for json. and form. expressions.
type body struct {
	data    []byte
	json    any
	jsonErr error
	jsonOK  bool
	form    url.Values
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
func (b *body) formValue(r *http.Request, name string) (string, error) {
	if r.PostForm != nil && len(b.data) == 0 {
		return r.PostForm.Get(name), nil // parsed (and consumed) upstream
	}
	if b.form != nil {
		return b.form.Get(name), nil
	}
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil {
		return "", nil
	}
	switch mt {
	case "application/x-www-form-urlencoded":
		b.form, err = url.ParseQuery(string(b.data))
		if err != nil {
			return "", fmt.Errorf("malformed form body: %w", executor.ErrInvalidKey)
		}
		return b.form.Get(name), nil
	case "multipart/form-data":
		return multipartValue(b.data, params["boundary"], name)
	}
	return "", nil
}

// multipartValue returns the first non-file part named name.
func multipartValue(data []byte, boundary, name string) (string, error) {
	if boundary == "" {
		return "", fmt.Errorf("multipart body without boundary: %w", executor.ErrInvalidKey)
	}
	mr := multipart.NewReader(bytes.NewReader(data), boundary)
	for {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return "", nil
		}
		if err != nil {
			return "", fmt.Errorf("malformed multipart body: %w", executor.ErrInvalidKey)
		}
		if p.FormName() != name || p.FileName() != "" {
			continue
		}
		v, err := io.ReadAll(p)
		if err != nil {
			return "", fmt.Errorf("malformed multipart body: %w", executor.ErrInvalidKey)
		}
		return string(v), nil
	}
}

// jsonValue returns the scalar at path in a JSON body.
func (b *body) jsonValue(path []string) (string, error) {
	if !b.jsonOK && b.jsonErr == nil {
		if len(b.data) == 0 {
			b.jsonErr = fmt.Errorf("body is empty: %w", executor.ErrInvalidKey)
		} else {
			dec := json.NewDecoder(bytes.NewReader(b.data))
			dec.UseNumber()
			if err := dec.Decode(&b.json); err != nil {
				b.jsonErr = fmt.Errorf("body is not JSON: %w", executor.ErrInvalidKey)
			} else {
				b.jsonOK = true
			}
		}
	}
	if b.jsonErr != nil {
		return "", b.jsonErr
	}
	v := b.json
	for _, seg := range path {
		switch x := v.(type) {
		case map[string]any:
			v = x[seg]
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(x) {
				return "", nil
			}
			v = x[i]
		default:
			return "", nil
		}
	}
	switch x := v.(type) {
	case nil:
		return "", nil
	case string:
		return x, nil
	case bool:
		return strconv.FormatBool(x), nil
	case json.Number:
		return canonicalNumber(string(x)), nil
	default:
		return "", fmt.Errorf("is a JSON object or array, not a scalar: %w", executor.ErrInvalidKey)
	}
}

// canonicalNumber returns one spelling per JSON number: integer literals keep
// their digits (whatever their size), other numbers are integral values
// below 2^53 written as integers, or the shortest float form.
func canonicalNumber(s string) string {
	if isIntLiteral(s) {
		if s == "-0" {
			return "0"
		}
		return s
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return s
	}
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// isIntLiteral reports whether s is a JSON integer literal (-?digits).
func isIntLiteral(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
