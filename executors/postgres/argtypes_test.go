package postgres

import "testing"

// TestArgTypes: the argument types of a parameter list as GRANT and
// to_regprocedure name a function, whatever defaults and modes it has.
func TestArgTypes(t *testing.T) {
	for _, c := range []struct{ params, want string }{
		{"k text, claim bigint", "text, bigint"},
		{"ks text[], os text[],\n\tttls bigint[]", "text[], text[], bigint[]"},
		{"lim int, after text DEFAULT ''", "int, text"},
		{"lim int, after text DEFAULT 'a,b'", "int, text"},
		{"x numeric(10, 2) = 0, OUT y bigint, INOUT z double precision", "numeric(10, 2), double precision"},
		{"VARIADIC ks text[]", "text[]"},
		{"", ""},
	} {
		if got := argTypes(c.params); got != c.want {
			t.Errorf("argTypes(%q) = %q, want %q", c.params, got, c.want)
		}
	}
}
