package main

import (
	"os/user"
	"strings"
	"testing"

	"github.com/lock4go/lock4go/internal/testserver"
)

// TestPostgres_bareAddress: --postgres host:port names no user, so pgx
// connects as PGUSER or, without it, the operating system's user (root in
// a container), whom the server does not know. The error says which user
// was tried and where it came from and shows the user@host:port/db form,
// with no line of the TLS attempt that sslmode=prefer made first; -h shows
// the same form.
func TestPostgres_bareAddress(t *testing.T) {
	testserver.Check(t, pgErr)
	r := runCLI(t, "", []string{"PGUSER=nosuchrole"}, "inspect", "--postgres", pgSrv.Addr(), "k")
	wantCode(t, r, exitUnreachable)
	wantLoginHint(t, r.stderr, `user "nosuchrole" (from PGUSER`)

	if u, err := user.Current(); err == nil && u.Username != "postgres" {
		r = runCLI(t, "", []string{"PGUSER="}, "inspect", "--postgres", pgSrv.Addr(), "k")
		wantCode(t, r, exitUnreachable)
		wantLoginHint(t, r.stderr, `user "`+u.Username+`" (the operating system's user`)
	}

	h := runCLI(t, "", nil, "inspect", "-h")
	if !strings.Contains(h.stdout+h.stderr, "user@host:port/db") {
		t.Errorf("inspect -h does not show the user@host:port/db form")
	}
}

// wantLoginHint checks the error of a refused login: the user and its
// source, the form that names a user, and no TLS attempt.
func wantLoginHint(t *testing.T, stderr, who string) {
	t.Helper()
	for _, want := range []string{who, `role "`, "--postgres USER@" + pgSrv.Addr() + "/DB"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q", want)
		}
	}
	if strings.Contains(strings.ToLower(stderr), "tls") {
		t.Errorf("stderr reports the TLS attempt of sslmode=prefer")
	}
}
