package mysql

import (
	"encoding/hex"
	"strconv"
	"strings"
)

// calls builds the statements the executor sends: each one CALL of a
// procedure of the schema, with its arguments written into the text (keys,
// owners and members as hexadecimal literals, numbers as decimals), so
// that it goes as one text round trip whatever the DSN says of
// interpolateParams, no prepared statement is left on a connection, and no
// byte of a key can be read as SQL, whatever the session's sql_mode and
// character set.
type calls struct {
	table string // the names' table prefix
}

func newCalls(n names) calls { return calls{table: n.table} }

// arg is an argument of [calls.call], which writes itself into the
// statement.
type arg interface{ write(b *strings.Builder) }

// hexArg is a binary string argument: written as X'...'.
type hexArg string

// jsonArg is a string argument made of characters that need no escaping
// in a SQL string literal (the renewal's items): written as '...'.
type jsonArg string

// num is an integer argument.
type num int64

// flag is a boolean argument.
type flag bool

func (v hexArg) write(b *strings.Builder) {
	b.WriteString("X'")
	var buf [64]byte
	for s := string(v); len(s) > 0; {
		n := min(len(s), len(buf)/2)
		hex.Encode(buf[:], []byte(s[:n]))
		b.Write(buf[:2*n])
		s = s[n:]
	}
	b.WriteByte('\'')
}

func (v jsonArg) write(b *strings.Builder) {
	b.WriteByte('\'')
	b.WriteString(string(v))
	b.WriteByte('\'')
}

func (v num) write(b *strings.Builder) { b.WriteString(strconv.FormatInt(int64(v), 10)) }

func (v flag) write(b *strings.Builder) {
	if v {
		b.WriteString("TRUE")
	} else {
		b.WriteString("FALSE")
	}
}

// call returns the statement that calls the procedure name (after the
// table prefix) with args.
func (c calls) call(name string, args ...arg) string {
	var b strings.Builder
	n := len(c.table) + len(name) + 8
	for _, a := range args {
		switch v := a.(type) {
		case hexArg:
			n += 2*len(v) + 5
		case jsonArg:
			n += len(v) + 4
		default:
			n += 22
		}
	}
	b.Grow(n)
	b.WriteString("CALL ")
	b.WriteString(c.table)
	b.WriteString(name)
	b.WriteByte('(')
	for i, a := range args {
		if i > 0 {
			b.WriteString(", ")
		}
		a.write(&b)
	}
	b.WriteByte(')')
	return b.String()
}

// rawArg is an argument written as it is: a number formatted by the
// caller.
type rawArg string

func (v rawArg) write(b *strings.Builder) { b.WriteString(string(v)) }
