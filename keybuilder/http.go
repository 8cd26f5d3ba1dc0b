package keybuilder

import (
	"fmt"
	"net/http"
	"net/textproto"
	"net/url"

	"github.com/lock4go/lock4go/executor"
)

var httpKinds = map[string]kind{
	"path": kindPath, "query": kindQuery, "header": kindHeader, "cookie": kindCookie,
	"form": kindForm, "json": kindJSON, "ip": kindIP, "method": kindMethod, "func": kindFunc,
}

// HTTP builds lock keys for HTTP requests from key expressions. It is
// immutable and safe for concurrent use.
type HTTP struct {
	prefix string
	name   string
	exprs  []expr
	funcs  []HTTPFunc // by expression index, for func.<name>
	opts   options
}

// NewHTTP returns a builder of keys <prefix>:<name>#<part>:<part>… whose
// parts are the values of exprs, in order (see the package documentation for
// the expressions). An empty name means the request's route pattern
// (r.Pattern, set by http.ServeMux for the handler it routes to); a request
// without one then fails with an error wrapping executor.ErrInvalidConfig.
// A malformed expression, an unknown func.<name> or a bad option is an error
// wrapping executor.ErrInvalidConfig.
func NewHTTP(prefix, name string, exprs []string, opts ...Option) (*HTTP, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	b := &HTTP{prefix: prefix, name: name, opts: o}
	if name != "" {
		if err := checkName(prefix, name, o.maxKeyLen); err != nil {
			return nil, err
		}
	}
	for _, src := range exprs {
		e, err := parseExpr(src, httpKinds)
		if err != nil {
			return nil, err
		}
		var f HTTPFunc
		switch e.kind {
		case kindHeader:
			if !validToken(e.arg) {
				return nil, fmt.Errorf("keybuilder: expression %q: invalid header name: %w", src, executor.ErrInvalidConfig)
			}
			e.arg = textproto.CanonicalMIMEHeaderKey(e.arg)
		case kindFunc:
			f = o.httpFuncs[e.arg]
			if f == nil {
				return nil, fmt.Errorf("keybuilder: expression %q: no function registered with WithHTTPFunc(%q, …): %w",
					src, e.arg, executor.ErrInvalidConfig)
			}
		}
		b.exprs = append(b.exprs, e)
		b.funcs = append(b.funcs, f)
	}
	return b, nil
}

// Key builds the key of r. It returns an error wrapping
// executor.ErrInvalidKey when a part is missing or empty (naming the
// expression) and executor.ErrInvalidConfig when the builder cannot name the
// request. json. and form. expressions, and query. expressions on
// urlencoded or multipart bodies, replace r.Body by a reader of the same
// bytes.
func (b *HTTP) Key(r *http.Request) (string, error) {
	name := b.name
	if name == "" {
		name = r.Pattern
		if name == "" {
			return "", fmt.Errorf("keybuilder: no name and no route pattern (set a name, or wrap the handler registered on the http.ServeMux): %w",
				executor.ErrInvalidConfig)
		}
	}
	var buf [8]string
	parts := buf[:0]
	var st httpState
	for i := range b.exprs {
		v, err := b.part(r, i, &st)
		if err != nil {
			return "", err
		}
		parts = append(parts, v)
	}
	return join(b.prefix, name, parts, b.opts.maxKeyLen)
}

// httpState caches what several expressions of one request share.
type httpState struct {
	query    url.Values
	body     *body
	bodyErr  error
	bodyRead bool
}

func (b *HTTP) part(r *http.Request, i int, st *httpState) (string, error) {
	e := &b.exprs[i]
	v, err := b.value(r, i, st)
	switch {
	case err != nil:
		return "", partErr(e, err)
	case v == "":
		return "", missing(e, "is missing or empty")
	case e.conv != convNone && e.kind != kindJSON: // json. converts as it reads
		if v, err = convert(e.conv, v); err != nil {
			return "", partErr(e, err)
		}
	}
	return v, nil
}

// value returns the value of expression i in r, as read from its source.
func (b *HTTP) value(r *http.Request, i int, st *httpState) (string, error) {
	e := &b.exprs[i]
	switch e.kind {
	case kindPath:
		return r.PathValue(e.arg), nil
	case kindQuery:
		if st.query == nil {
			st.query = r.URL.Query()
		}
		v := st.query.Get(e.arg)
		if v != "" && isForm(r) {
			if err := b.notInForm(r, e.arg, st); err != nil {
				return "", err
			}
		}
		return v, nil
	case kindHeader:
		if vs := r.Header[e.arg]; len(vs) > 0 {
			return vs[0], nil
		}
	case kindCookie:
		if c, err := r.Cookie(e.arg); err == nil {
			return c.Value, nil
		}
	case kindMethod:
		return r.Method, nil
	case kindIP:
		return clientIP(r, &b.opts)
	case kindForm, kindJSON:
		body, err := b.body(r, st)
		if err != nil {
			return "", err
		}
		if e.kind == kindForm {
			return body.formValue(r, e.arg)
		}
		return jsonValue(body.data, e.path, e.conv)
	case kindFunc:
		return b.funcs[i](r)
	}
	return "", nil
}

// body returns r's body, read once per request.
func (b *HTTP) body(r *http.Request, st *httpState) (*body, error) {
	if !st.bodyRead {
		st.body, st.bodyErr = readBody(r, b.opts.maxBodyBytes)
		st.bodyRead = true
	}
	return st.body, st.bodyErr
}

// notInForm returns an error when the form body of r has a field named
// name, like the query parameter being read: r.FormValue reads the body's
// value first for urlencoded bodies, so the handler could act on another
// value than the one locked (and r.PostFormValue reads the body's for
// multipart ones too). A body that cannot be read is an error too.
func (b *HTTP) notInForm(r *http.Request, name string, st *httpState) error {
	body, err := b.body(r, st)
	if err != nil {
		return fmt.Errorf("cannot check that the form body has no field %q: %w", name, err)
	}
	_, has, err := body.formField(r, name)
	if err != nil {
		return err
	}
	if has {
		return fmt.Errorf("query parameter %q is in the form body too: ambiguous (r.FormValue reads the body's): %w", name, executor.ErrInvalidKey)
	}
	return nil
}

// validToken reports whether s is an RFC 9110 token (a header field name).
func validToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '!' || c == '#' || c == '$' || c == '%' || c == '&' || c == '\'' || c == '*' ||
			c == '+' || c == '-' || c == '.' || c == '^' || c == '_' || c == '`' || c == '|' || c == '~':
		default:
			return false
		}
	}
	return true
}
