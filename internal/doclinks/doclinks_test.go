package doclinks

import (
	"os"
	"path/filepath"
	"testing"
)

// TestModules fails for every doc link that names nothing in the packages
// of the repository's modules: the root one and the nested examples and
// bench.
func TestModules(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	for dir, module := range map[string]string{
		".":        "github.com/lock4go/lock4go",
		"examples": "github.com/lock4go/lock4go/examples",
		"bench":    "github.com/lock4go/lock4go/bench",
	} {
		problems, err := Check(filepath.Join(root, dir), module)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range problems {
			t.Errorf("%s: %v", dir, p)
		}
	}
}

// TestCheck_findsStaleLinks shows the check failing on a package whose
// comments cite a removed method, a missing field and a missing symbol of
// another package of the module.
func TestCheck_findsStaleLinks(t *testing.T) {
	root := t.TempDir()
	write := func(name, src string) {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/m\n")
	write("a/a.go", `// Package a uses [b.Gone] and [b.Here].
package a

import "example.com/m/b"

// T is [T.Lost] and [T.Field] and [T.Missing], see [fmt.Println] and [fmt.Nope].
type T struct {
	// Field is [b.Here].
	Field b.Here
}

// Run is [Run] and [Walk].
func (T) Run() {}
`)
	write("b/b.go", "// Package b.\npackage b\n\n// Here is here.\ntype Here int\n")
	problems, err := Check(root, "example.com/m")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"example.com/m/b.Gone": true, "T.Lost": true, "T.Missing": true, "fmt.Nope": true, "Run": true, "Walk": true}
	got := map[string]bool{}
	for _, p := range problems {
		got[p.Link] = true
	}
	for w := range want {
		if !got[w] {
			t.Errorf("missed [%s]; found %v", w, problems)
		}
	}
	for g := range got {
		if !want[g] {
			t.Errorf("false alarm [%s]", g)
		}
	}
}
