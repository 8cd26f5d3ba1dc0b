package middleware

import (
	"bufio"
	"io"
	"net"
	"net/http"
)

// responseWriter records whether the handler has started its response. It
// keeps Flush, Hijack, Push and ReadFrom available and unwraps for
// http.ResponseController.
type responseWriter struct {
	http.ResponseWriter
	wrote bool
}

func (w *responseWriter) WriteHeader(code int) {
	if code >= 200 || code == http.StatusSwitchingProtocols {
		w.wrote = true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *responseWriter) Write(b []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

func (w *responseWriter) ReadFrom(r io.Reader) (int64, error) {
	w.wrote = true
	if rf, ok := w.ResponseWriter.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(w.ResponseWriter, r)
}

func (w *responseWriter) Flush() { _ = w.FlushError() }

// FlushError flushes the response; a flush that failed (not supported)
// has sent nothing, so the response counts as started only on success.
func (w *responseWriter) FlushError() error {
	err := http.NewResponseController(w.ResponseWriter).Flush()
	if err == nil {
		w.wrote = true
	}
	return err
}

// Hijack hands the connection over; once it succeeded, the middleware never
// writes to it again.
func (w *responseWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, rw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err == nil {
		w.wrote = true
	}
	return c, rw, err
}

func (w *responseWriter) Push(target string, opts *http.PushOptions) error {
	if p, ok := w.ResponseWriter.(http.Pusher); ok {
		return p.Push(target, opts)
	}
	return http.ErrNotSupported
}

func (w *responseWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
