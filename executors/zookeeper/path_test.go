package zookeeper

import (
	"strings"
	"testing"
)

// TestExecutor_LockPath checks that LockPath names the lock parent, with the
// key escaped, and that the node of a held lease is its child.
func TestExecutor_LockPath(t *testing.T) {
	conn := dial(t, testSession, server(t))
	base := basePath(t)
	e := newExecutor(t, conn, Options{BasePath: base})
	for _, tc := range []struct{ key, want string }{
		{"orders:42", base + "/orders:42"},
		{"a/b", base + "/a%2Fb"},
		{"..", base + "/%2E%2E"},
	} {
		if got := e.LockPath(tc.key); got != tc.want {
			t.Errorf("LockPath(%q) = %q, want %q", tc.key, got, tc.want)
		}
	}
	key := "a/b"
	l, err := e.Acquire(t.Context(), req(key, false))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Release(t.Context()) }()
	children, _, err := conn.Children(e.LockPath(key))
	if err != nil {
		t.Fatal(err)
	}
	if len(children) != 1 || l.(*lease).path != e.LockPath(key)+"/"+children[0] || !strings.HasPrefix(children[0], protectedPrefix) {
		t.Fatalf("children of %s = %v, lease node %s", e.LockPath(key), children, l.(*lease).path)
	}
}
