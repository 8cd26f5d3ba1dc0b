package keybuilder

import (
	"fmt"
	"strings"

	"github.com/lock4go/lock4go/executor"
)

// kind is the source of a key part.
type kind uint8

const (
	kindPath kind = iota + 1
	kindQuery
	kindHeader
	kindCookie
	kindForm
	kindJSON
	kindIP
	kindMethod
	kindFunc
	kindReq
	kindMD
)

// expr is one parsed key expression.
type expr struct {
	src  string   // the expression as written, for error messages
	kind kind     // where the value comes from
	arg  string   // parameter, header, cookie, field or metadata name
	path []string // json. and req. segments
	conv conv     // "|int" or "|float"
}

// parseExpr parses "kind.arg" or a bare kind, optionally followed by "|int"
// or "|float", against the kinds allowed.
func parseExpr(src string, kinds map[string]kind) (expr, error) {
	body, cname, hasConv := strings.Cut(src, "|")
	name, arg, hasArg := strings.Cut(body, ".")
	k, ok := kinds[name]
	if !ok {
		return expr{}, fmt.Errorf("keybuilder: expression %q: unknown source %q: %w", src, name, executor.ErrInvalidConfig)
	}
	e := expr{src: src, kind: k, arg: arg}
	bare := k == kindIP || k == kindMethod
	switch {
	case bare && hasArg:
		return expr{}, fmt.Errorf("keybuilder: expression %q: %s takes no argument: %w", src, name, executor.ErrInvalidConfig)
	case !bare && arg == "":
		return expr{}, fmt.Errorf("keybuilder: expression %q: %s needs a name (%s.<name>): %w", src, name, name, executor.ErrInvalidConfig)
	}
	if hasConv {
		c, ok := convs[cname]
		switch {
		case !ok:
			return expr{}, fmt.Errorf("keybuilder: expression %q: unknown conversion %q (|int or |float): %w", src, cname, executor.ErrInvalidConfig)
		case bare:
			return expr{}, fmt.Errorf("keybuilder: expression %q: %s is never a number: %w", src, name, executor.ErrInvalidConfig)
		}
		e.conv = c
	}
	if k == kindJSON || k == kindReq {
		e.path = strings.Split(arg, ".")
		for _, seg := range e.path {
			if seg == "" {
				return expr{}, fmt.Errorf("keybuilder: expression %q: empty path segment: %w", src, executor.ErrInvalidConfig)
			}
		}
	}
	return e, nil
}

// missing is the error of a missing or empty part.
func missing(e *expr, why string) error {
	return fmt.Errorf("keybuilder: key part %q %s: %w", e.src, why, executor.ErrInvalidKey)
}

// partErr wraps an error returned while evaluating e.
func partErr(e *expr, err error) error {
	return fmt.Errorf("keybuilder: key part %q: %w", e.src, err)
}
