package keybuilder

import (
	"bytes"
	"errors"
	"fmt"
	"io"
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
		return nil, tooLarge(r.ContentLength, max)
	}
	data, err := readAll(io.LimitReader(r.Body, max+1), r.ContentLength)
	r.Body = restoredBody{Reader: io.MultiReader(bytes.NewReader(data), r.Body), Closer: r.Body}
	if err != nil {
		// An outer http.MaxBytesReader's *http.MaxBytesError stays in the
		// chain: failure.HTTPStatus answers it 413.
		return nil, fmt.Errorf("reading the body: %w: %w", executor.ErrInvalidKey, err)
	}
	if int64(len(data)) > max {
		return nil, tooLarge(-1, max)
	}
	return &body{data: data}, nil
}

// tooLarge returns the error of a body of n bytes (-1: unknown) over the
// cap max: an ErrInvalidKey whose chain holds an *http.MaxBytesError, as
// the error of an http.MaxBytesReader does, so that the request is
// answered 413 (Content Too Large) like one over an outer limit.
func tooLarge(n, max int64) error {
	size := "body"
	if n >= 0 {
		size = fmt.Sprintf("body of %d bytes", n)
	}
	return fmt.Errorf("%s is larger than %d bytes: %w: %w", size, max, executor.ErrInvalidKey, &http.MaxBytesError{Limit: max})
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
