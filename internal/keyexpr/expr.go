package keyexpr

import (
	"fmt"
	"strings"

	"github.com/lock4go/lock4go/executor"
)

// Kind is the source of a key part.
type Kind uint8

// The sources of key parts; each builder accepts some of them.
const (
	KindPath Kind = iota + 1
	KindQuery
	KindHeader
	KindCookie
	KindForm
	KindJSON
	KindIP
	KindMethod
	KindFunc
	KindReq
	KindMD
)

// Expr is one parsed key expression.
type Expr struct {
	Src  string   // the expression as written, for errors
	Kind Kind     // where the value comes from
	Arg  string   // parameter, header, cookie, field or metadata name
	Path []string // json. and req. segments
	Conv Conv     // "|int", "|float" or "|base64"
}

// Parse parses "kind.arg" or a bare kind (ip, method), optionally followed
// by "|int", "|float" or "|base64", against the kinds a builder allows (by name). A
// malformed expression is an error wrapping executor.ErrInvalidConfig,
// without a package prefix (the builder adds its own).
func Parse(src string, kinds map[string]Kind) (Expr, error) {
	body, cname, hasConv := strings.Cut(src, "|")
	name, arg, hasArg := strings.Cut(body, ".")
	k, ok := kinds[name]
	if !ok {
		return Expr{}, invalid(src, "unknown source %q", name)
	}
	e := Expr{Src: src, Kind: k, Arg: arg}
	bare := k == KindIP || k == KindMethod
	switch {
	case bare && hasArg:
		return Expr{}, invalid(src, "%s takes no argument", name)
	case !bare && arg == "":
		return Expr{}, invalid(src, "%s needs a name (%s.<name>)", name, name)
	}
	if hasConv {
		c, ok := convs[cname]
		switch {
		case !ok:
			return Expr{}, invalid(src, "unknown conversion %q (|int, |float or |base64)", cname)
		case bare:
			return Expr{}, invalid(src, "%s takes no conversion", name)
		}
		e.Conv = c
	}
	if k == KindJSON || k == KindReq {
		e.Path = strings.Split(arg, ".")
		for _, seg := range e.Path {
			if seg == "" {
				return Expr{}, invalid(src, "empty path segment")
			}
		}
	}
	return e, nil
}

func invalid(src, format string, args ...any) error {
	return fmt.Errorf("expression %q: %s: %w", src, fmt.Sprintf(format, args...), executor.ErrInvalidConfig)
}
