package keybuilder

import (
	"fmt"
	"net/http"
	"net/textproto"
	"net/url"
	"strings"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/keyexpr"
)

var httpKinds = map[string]keyexpr.Kind{
	"path": keyexpr.KindPath, "query": keyexpr.KindQuery, "header": keyexpr.KindHeader, "cookie": keyexpr.KindCookie,
	"form": keyexpr.KindForm, "json": keyexpr.KindJSON, "ip": keyexpr.KindIP, "method": keyexpr.KindMethod, "func": keyexpr.KindFunc,
}

// HTTP builds lock keys for HTTP requests from key expressions. It is
// immutable and safe for concurrent use.
type HTTP struct {
	prefix string
	name   string
	exprs  []keyexpr.Expr
	funcs  []HTTPFunc  // by expression index, for func.<name>
	segs   [][]jsonSeg // by expression index, for json.<path>
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
		e, err := keyexpr.Parse(src, httpKinds)
		if err != nil {
			return nil, fmt.Errorf("keybuilder: %w", err)
		}
		var f HTTPFunc
		switch e.Kind {
		case keyexpr.KindHeader:
			if !validToken(e.Arg) {
				return nil, fmt.Errorf("keybuilder: expression %q: invalid header name: %w", src, executor.ErrInvalidConfig)
			}
			e.Arg = textproto.CanonicalMIMEHeaderKey(e.Arg)
		case keyexpr.KindFunc:
			f = o.httpFuncs[e.Arg]
			if f == nil {
				return nil, fmt.Errorf("keybuilder: expression %q: no function registered with WithHTTPFunc(%q, …): %w",
					src, e.Arg, executor.ErrInvalidConfig)
			}
		}
		var segs []jsonSeg
		switch e.Kind {
		case keyexpr.KindJSON:
			segs = jsonSegs(e.Path)
		case keyexpr.KindQuery: // the member of a JSON body that rivals it
			segs = jsonSegs([]string{e.Arg})
		}
		b.exprs = append(b.exprs, e)
		b.funcs = append(b.funcs, f)
		b.segs = append(b.segs, segs)
	}
	return b, nil
}

// Key builds the key of r. It returns a [*PartError] (wrapping
// executor.ErrInvalidKey) when a part is missing, empty, longer than the
// part cap or not in a form its expression can key, and an error wrapping
// executor.ErrInvalidConfig when the builder does not fit the route: no
// name and no route pattern, or a path.<name> whose wildcard the route
// lacks (or a handler not routed by a pattern at all). json. and form.
// expressions, and query. expressions beside a form or JSON body, replace
// r.Body by a reader of the same bytes.
func (b *HTTP) Key(r *http.Request) (string, error) {
	name := b.name
	if name == "" {
		name = r.Pattern
		if name == "" {
			return "", errNoPattern
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
	return join(b.prefix, name, parts)
}

// errNoPattern is the error of a request without a route pattern to a
// builder without a name.
var errNoPattern = fmt.Errorf("keybuilder: no name and no route pattern (set a name, or wrap the handler registered on the http.ServeMux): %w",
	executor.ErrInvalidConfig)

// checkPattern returns, for a path.<name> expression whose value is empty,
// the error wrapping executor.ErrInvalidConfig of a route that cannot have
// it: no route pattern (the handler is not routed by an http.ServeMux),
// or a pattern without the wildcard {name}. It returns nil when the
// pattern has the wildcard: the request's segment is empty.
func checkPattern(pattern, name string) error {
	switch {
	case pattern == "":
		return fmt.Errorf("keybuilder: expression \"path.%s\": the request has no route pattern (wrap the handler registered on the http.ServeMux): %w",
			name, executor.ErrInvalidConfig)
	case !hasWildcard(pattern, name):
		return fmt.Errorf("keybuilder: expression \"path.%s\": route %q has no wildcard {%s}: %w",
			name, pattern, name, executor.ErrInvalidConfig)
	}
	return nil
}

// hasWildcard reports whether the ServeMux pattern has the wildcard
// {name} or {name...}.
func hasWildcard(pattern, name string) bool {
	for rest := pattern; ; {
		i := strings.IndexByte(rest, '{')
		if i < 0 {
			return false
		}
		rest = rest[i+1:]
		j := strings.IndexByte(rest, '}')
		if j < 0 {
			return false
		}
		if w := strings.TrimSuffix(rest[:j], "..."); w == name {
			return true
		}
		rest = rest[j+1:]
	}
}

// httpState caches what several expressions of one request share.
type httpState struct {
	query    url.Values
	body     *body
	bodyErr  error
	bodyRead bool
	form     bodyForm
	boundary string
	formRead bool
}

// queryValues returns r's query, parsed once per request.
func (st *httpState) queryValues(r *http.Request) url.Values {
	if st.query == nil {
		st.query = r.URL.Query()
	}
	return st.query
}

// formOf returns how net/http parses r's body as a form ([formOf]),
// decided once per request.
func (st *httpState) formOf(r *http.Request) (bodyForm, string) {
	if !st.formRead {
		st.form, st.boundary = formOf(r)
		st.formRead = true
	}
	return st.form, st.boundary
}

func (b *HTTP) part(r *http.Request, i int, st *httpState) (string, error) {
	e := &b.exprs[i]
	v, err := b.value(r, i, st)
	switch {
	case err != nil:
		return "", partErr(e.Src, err)
	case v == "":
		if e.Kind == keyexpr.KindPath {
			if err := checkPattern(r.Pattern, e.Arg); err != nil {
				return "", err
			}
		}
		return "", missing(e.Src)
	case len(v) > b.opts.maxPartLen:
		return "", tooLong(e.Src, len(v), b.opts.maxPartLen)
	case e.Conv != keyexpr.ConvNone && e.Kind != keyexpr.KindJSON: // json. converts as it reads
		if v, err = keyexpr.Convert(e.Conv, v); err != nil {
			return "", partErr(e.Src, err)
		}
		if v == "" { // base64 of no bytes
			return "", missing(e.Src)
		}
	}
	return v, nil
}

// value returns the value of expression i in r, as read from its source.
func (b *HTTP) value(r *http.Request, i int, st *httpState) (string, error) {
	e := &b.exprs[i]
	switch e.Kind {
	case keyexpr.KindPath:
		return r.PathValue(e.Arg), nil
	case keyexpr.KindQuery:
		v, err := single(st.queryValues(r)[e.Arg], "query parameter", e.Arg)
		if err != nil || v == "" {
			return "", err
		}
		return v, b.notInBody(r, i, st)
	case keyexpr.KindHeader:
		if vs := r.Header[e.Arg]; len(vs) > 0 {
			return vs[0], nil
		}
	case keyexpr.KindCookie:
		if c, err := r.Cookie(e.Arg); err == nil {
			return c.Value, nil
		}
	case keyexpr.KindMethod:
		return r.Method, nil
	case keyexpr.KindIP:
		return clientIP(r, &b.opts)
	case keyexpr.KindForm:
		body, err := b.body(r, st)
		if err != nil {
			return "", err
		}
		return body.formValue(r, e.Arg, st)
	case keyexpr.KindJSON:
		if err := checkJSONRequest(r); err != nil {
			return "", err
		}
		body, err := b.body(r, st)
		if err != nil {
			return "", err
		}
		return jsonValue(body.data, b.segs[i], e.Conv)
	case keyexpr.KindFunc:
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

// notInBody returns an error when a handler may read the query parameter
// of expression i from r's body instead of (or over) the query (see
// [rivalOf]): a form body with a field of that name (even empty), a JSON
// body with a top-level member of that name (ignoring case, as
// encoding/json matches struct fields; null aside), or a body the builder
// cannot look into. A body that cannot be read or parsed is an error too.
func (b *HTTP) notInBody(r *http.Request, i int, st *httpState) error {
	name := b.exprs[i].Arg
	form, _ := st.formOf(r)
	rival := rivalOf(r, form)
	switch rival {
	case rivalNone:
		return nil
	case rivalOpaque:
		return fmt.Errorf("query parameter %q beside a %.60q body, which binders read over the query: %w",
			name, contentType(r), executor.ErrInvalidKey)
	}
	body, err := b.body(r, st)
	if err != nil {
		return fmt.Errorf("cannot check that the body has no field %q: %w", name, err)
	}
	has := false
	if rival == rivalForm {
		vs, err := body.formField(r, name, st)
		if err != nil {
			return err
		}
		has = len(vs) > 0
	} else if len(body.data) > 0 {
		raw, err := jsonFind(body.data, b.segs[i])
		if err != nil {
			return err
		}
		has = raw != nil && string(raw) != "null"
	}
	if has {
		return fmt.Errorf("query parameter %q is in the body too: ambiguous (r.FormValue, gin and echo read the body's): %w", name, executor.ErrInvalidKey)
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
