package failure

import (
	"errors"
	"io"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"time"
)

// HTTPHandler writes the response to a request whose lock was not obtained.
// The protected handler has not run. Implementations must be safe for
// concurrent use.
type HTTPHandler interface {
	ServeLockFailure(w http.ResponseWriter, r *http.Request, f Info)
}

// HTTPHandlerFunc adapts a function to [HTTPHandler].
type HTTPHandlerFunc func(w http.ResponseWriter, r *http.Request, f Info)

// ServeLockFailure calls fn(w, r, f).
func (fn HTTPHandlerFunc) ServeLockFailure(w http.ResponseWriter, r *http.Request, f Info) {
	fn(w, r, f)
}

// HTTPOptions configures [HTTPStatus]. The zero value consists entirely of
// defaults.
type HTTPOptions struct {
	// RetryAfter is the Retry-After sent with 429, rounded up to whole
	// seconds. Zero means the failure's AcquireTimeout, or 1s when that is
	// zero too.
	RetryAfter time.Duration
	// Message is the plain-text body of busy, unavailable and internal
	// failures. Zero means [DefaultMessage].
	Message string
	// Logger receives one record per failure with the error: busy and
	// misconfigured at Debug (the middleware logs a misconfiguration at
	// Error, once per route), invalid key at Info, others at Error. Nil
	// means slog.Default().
	Logger *slog.Logger
}

// HTTPStatus returns the default HTTP strategy, a plain-text answer by
// [Class]: 429 with Retry-After and Message when the lock is busy, 503 with
// Message when the backend is unavailable, 400 naming the key part for an
// invalid key ([PublicMessage]; 413 when its error holds an
// *http.MaxBytesError, a body too large to read for the key), 500 with
// [MisconfiguredMessage] for a misconfiguration and 500 with Message
// otherwise.
func HTTPStatus(o HTTPOptions) HTTPHandler {
	if o.Message == "" {
		o.Message = DefaultMessage
	}
	return httpStatus{o: o}
}

type httpStatus struct{ o HTTPOptions }

func (s httpStatus) ServeLockFailure(w http.ResponseWriter, r *http.Request, f Info) {
	kind := Classify(f.Err)
	code, level, body := http.StatusInternalServerError, slog.LevelError, s.o.Message
	h := w.Header()
	switch kind {
	case ClassBusy:
		code, level = http.StatusTooManyRequests, slog.LevelDebug
		h.Set("Retry-After", retryAfter(s.o.RetryAfter, f.AcquireTimeout))
	case ClassUnavailable:
		code = http.StatusServiceUnavailable
	case ClassInvalidKey:
		code, level, body = http.StatusBadRequest, slog.LevelInfo, PublicMessage(f.Err)
		if _, ok := errors.AsType[*http.MaxBytesError](f.Err); ok {
			code = http.StatusRequestEntityTooLarge
		}
	case ClassMisconfigured:
		level, body = slog.LevelDebug, MisconfiguredMessage
	}
	logger := s.o.Logger
	if logger == nil {
		logger = slog.Default()
	}
	if logger.Enabled(r.Context(), level) {
		logger.LogAttrs(r.Context(), level, "lock4go: lock not obtained",
			slog.String("kind", kind.String()), slog.String("key", f.Key),
			slog.String("method", r.Method), slog.String("path", r.URL.Path),
			slog.Int("status", code), slog.Any("error", f.Err))
	}
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(code)
	_, _ = io.WriteString(w, body)
}

// retryAfter returns whole seconds, rounded up, at least 1.
func retryAfter(configured, acquireTimeout time.Duration) string {
	d := configured
	if d <= 0 {
		d = acquireTimeout
	}
	secs := int64(math.Ceil(d.Seconds()))
	if secs < 1 {
		secs = 1
	}
	return strconv.FormatInt(secs, 10)
}

// HTTPFallback returns a strategy that serves the request with h instead;
// h finds the failure with [FromContext](r.Context()).
func HTTPFallback(h http.Handler) HTTPHandler {
	return HTTPHandlerFunc(func(w http.ResponseWriter, r *http.Request, f Info) {
		h.ServeHTTP(w, r.WithContext(NewContext(r.Context(), f)))
	})
}
