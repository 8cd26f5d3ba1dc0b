package doccheck

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// repoRoot is the repository, two levels above this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// docFiles returns README.md and docs/*.md, relative to root.
func docFiles(t *testing.T, root string) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files := []string{"README.md"}
	for _, d := range docs {
		files = append(files, filepath.Join("docs", filepath.Base(d)))
	}
	return files
}

// check extracts the Go blocks of files (relative to root), builds them in
// a temporary package directory of this module and returns the problems;
// it logs the fragments it skipped, with their reasons.
func check(t *testing.T, root string, files []string) []problem {
	t.Helper()
	var units []unit
	for _, f := range files {
		abs := filepath.Join(root, f)
		src, err := os.ReadFile(abs)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range goBlocks(f, src) {
			if why, ok := b.fragment(); ok {
				t.Logf("%s:%d: skipped, a fragment: %s", b.file, b.line, why)
				continue
			}
			units = append(units, makeUnit(b, "b", abs))
		}
	}
	dir, err := os.MkdirTemp(".", "_blocks-") // "_": invisible to ./... patterns; gitignored
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	dir, _ = filepath.Abs(dir)
	rel := func(abs string) string {
		if r, err := filepath.Rel(root, abs); err == nil {
			return r
		}
		return abs
	}
	probs, err := compile(context.Background(), dir, units, rel)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d Go blocks of %d files built", len(units), len(files))
	return probs
}

// TestDocs: every Go block of README.md and docs/*.md compiles.
func TestDocs(t *testing.T) {
	root := repoRoot(t)
	for _, p := range check(t, root, docFiles(t, root)) {
		t.Errorf("%v", p)
	}
}

// TestCheck_broken: a broken block fails the check at its file and line,
// with the compiler's error; a program, declarations, a body using givens
// and a fragment do not.
func TestCheck_broken(t *testing.T) {
	dir := t.TempDir()
	md := "# Doc\n\n" +
		"```go\nl, err := tpl.Lock(ctx, \"k\")\nif err != nil {\n\treturn err\n}\ndefer l.Release(ctx)\n```\n\n" + // line 4: a body using givens
		"```go\nfunc pay(ctx context.Context, tpl *lock4go.Template) error {\n\treturn tpl.Do(ctx, \"k\", charge)\n}\n\nfunc charge(context.Context) error { return nil }\n```\n\n" + // line 12: declarations
		"```go fragment: only a signature\nfunc (s *Server) Pay(ctx context.Context) error\n```\n\n" + // line 20
		"```go\nx := 1\ntpl.Lockk(ctx, \"k\")\n```\n\n" + // line 24: x unused is fine, Lockk is not
		"```go\npackage main\n\nfunc main() { undefinedCall() }\n```\n" // line 29: a program
	if err := os.WriteFile(filepath.Join(dir, "x.md"), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range check(t, dir, []string{"x.md"}) {
		got = append(got, p.String())
	}
	want := []string{
		"x.md:25:5: tpl.Lockk undefined (type *lock4go.Template has no field or method Lockk) (the ```go block at x.md:24)",
		"x.md:31:15: undefined: undefinedCall (the ```go block at x.md:29)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestBlock_fragment(t *testing.T) {
	for _, tc := range []struct {
		info, why string
		ok        bool
	}{
		{"go", "", false},
		{"go fragment", "no reason given", true},
		{"go fragment: Java shown for comparison", "Java shown for comparison", true},
		{"go fragment — a method set", "— a method set", true},
	} {
		why, ok := block{info: tc.info}.fragment()
		if why != tc.why || ok != tc.ok {
			t.Errorf("fragment(%q) = %q, %v; want %q, %v", tc.info, why, ok, tc.why, tc.ok)
		}
	}
}
