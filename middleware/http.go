package middleware

import (
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"time"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/failure"
	"github.com/lock4go/lock4go/internal/lockspec"
	"github.com/lock4go/lock4go/keybuilder"
)

// HTTP returns middleware that runs each request under the lock spec
// describes. It panics with an error wrapping lock4go.ErrInvalidConfig when
// spec is invalid (a malformed key expression, a negative duration,
// KeepUntilExpire without Expire, an unknown executor); use [NewHTTP] to
// get the error instead.
//
// Per request, a key part the request lacks, or has in a form that cannot
// be keyed, is the client's fault: 400 with a body naming the part
// (`missing key part "query.id"`). A key that the route's configuration
// cannot build, the same for every request (a path.<name> whose wildcard
// the route lacks, a handler not routed by an http.ServeMux pattern while
// Spec.Name is empty, an executor without the lock kind the Spec asks
// for), is the operator's: logged at Error once per route, and answered
// 500 with failure.MisconfiguredMessage, not a "please retry".
//
// The lock is released after the handler returns, also when the client goes
// away (on a context detached from the request's) and when the handler
// panics: the middleware then releases the lock and re-panics with the same
// value, so that outer recoverers and net/http see the panic as usual. If
// the handler had written nothing, the middleware first answers 500 with
// failure.DefaultMessage and flushes it, so the client gets a complete
// response before net/http closes the connection; a panic with
// http.ErrAbortHandler gets no response.
//
// The returned function panics with an error wrapping
// lock4go.ErrInvalidConfig when it is given an http.TimeoutHandler: put
// timeouts outside the lock (see the package documentation).
func HTTP(tpl *lock4go.Template, spec Spec, opts ...Option) func(http.Handler) http.Handler {
	mw, err := NewHTTP(tpl, spec, opts...)
	if err != nil {
		panic(err)
	}
	return mw
}

// NewHTTP is [HTTP] returning an error instead of panicking for a bad spec.
// The function it returns still panics when given an http.TimeoutHandler,
// as [HTTP]'s does.
func NewHTTP(tpl *lock4go.Template, spec Spec, opts ...Option) (func(http.Handler) http.Handler, error) {
	attrs := spec.attrs()
	c, err := attrs.Compile(tpl, "middleware: HTTP Spec")
	if err != nil {
		return nil, err
	}
	o := buildOptions(tpl, opts)
	m := &httpLock{tpl: tpl, c: c, fail: spec.Failure}
	for _, exprs := range attrs.KeyExprs() {
		b, err := keybuilder.NewHTTP(tpl.Config().KeyPrefix, spec.Name, exprs, o.keyOpts...)
		if err != nil {
			return nil, fmt.Errorf("middleware: HTTP Spec: %w", err)
		}
		m.keys = append(m.keys, b)
	}
	if m.fail == nil {
		m.fail = o.failure
	}
	return func(next http.Handler) http.Handler {
		if reflect.TypeOf(next) == timeoutHandlerType {
			panic(errTimeoutInside)
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			m.serve(next, w, r)
		})
	}, nil
}

// timeoutHandlerType is the type of the handlers http.TimeoutHandler
// returns.
var timeoutHandlerType = reflect.TypeOf(http.TimeoutHandler(http.NotFoundHandler(), time.Second, ""))

// errTimeoutInside is the panic of a middleware asked to wrap an
// http.TimeoutHandler.
var errTimeoutInside = fmt.Errorf("middleware: HTTP wraps an http.TimeoutHandler, which would release the lock under a running handler; put it outside: %w",
	lock4go.ErrInvalidConfig)

type httpLock struct {
	tpl     *lock4go.Template
	c       lockspec.Compiled
	keys    []*keybuilder.HTTP // one, or one per expression of Spec.Each
	fail    failure.HTTPHandler
	misconf lockspec.Once // routes whose misconfiguration was logged
}

func (m *httpLock) serve(next http.Handler, w http.ResponseWriter, r *http.Request) {
	key, keys, err := lockspec.BuildKeys(m.keys, func(b *keybuilder.HTTP) (string, error) { return b.Key(r) })
	if err != nil {
		m.failed(w, r, failure.Info{Err: err, AcquireTimeout: m.c.Wait})
		return
	}
	l, key, err := lockspec.Lock(r.Context(), m.tpl, key, keys, m.c.LockOpts)
	if err != nil {
		m.failed(w, r, failure.Info{Key: key, Err: err, AcquireTimeout: m.c.Wait})
		return
	}
	ctx, cancel := l.Context(r.Context())
	rw := &responseWriter{ResponseWriter: w}
	defer func() {
		cancel()
		if !m.c.Keep {
			// Release detaches from the request's context itself (it works
			// after a client disconnect); errors are logged by the Template.
			_ = l.Release(r.Context())
		}
		if p := recover(); p != nil {
			if p != http.ErrAbortHandler && !rw.wrote {
				internalError(rw.ResponseWriter)
			}
			panic(p)
		}
	}()
	next.ServeHTTP(rw, r.WithContext(ctx))
}

// failed answers a request whose lock was not obtained with the failure
// strategy, after logging a misconfiguration once per route.
func (m *httpLock) failed(w http.ResponseWriter, r *http.Request, f failure.Info) {
	if failure.Classify(f.Err) == failure.ClassMisconfigured {
		m.misconf.Log(r.Context(), m.tpl.Config().Logger,
			"lock4go: route misconfigured: its requests are answered 500 until the configuration is fixed",
			"route", r.Pattern, f.Err)
	}
	m.fail.ServeLockFailure(w, r, f)
}

var panicBody = []byte(failure.DefaultMessage)

// internalError writes a complete 500 and flushes it, so that it reaches the
// client although net/http closes the connection after the panic. Headers
// the handler set (cookies, redirects, caching) are dropped first: they
// belonged to a response that never happened.
func internalError(w http.ResponseWriter) {
	h := w.Header()
	clear(h)
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Length", strconv.Itoa(len(panicBody)))
	h.Set("Connection", "close")
	w.WriteHeader(http.StatusInternalServerError)
	_, _ = w.Write(panicBody)
	_ = http.NewResponseController(w).Flush()
}
