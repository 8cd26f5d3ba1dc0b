package doclinks

import (
	"fmt"
	"go/ast"
	"go/doc"
	"go/doc/comment"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
)

// Problem is a doc link that names nothing.
type Problem struct {
	Pos  string // file:line of the comment
	Link string // the link as written, without brackets
}

func (p Problem) String() string { return p.Pos + ": [" + p.Link + "] names nothing" }

// Check parses every package under root (a module whose path is module)
// and returns the doc links that do not resolve, sorted by position.
// Directories named testdata or starting with "." or "_" are skipped, as
// are nested modules (directories with a go.mod of their own).
func Check(root, module string) ([]Problem, error) {
	c := &checker{root: root, module: module, pkgs: map[string]*symbols{}}
	var problems []Problem
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if path != root && skipDir(path, d.Name()) {
			return filepath.SkipDir
		}
		ps, err := c.checkDir(path)
		problems = append(problems, ps...)
		return err
	})
	sort.Slice(problems, func(i, j int) bool { return problems[i].Pos < problems[j].Pos })
	return problems, err
}

func skipDir(path, name string) bool {
	if name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
		return true
	}
	_, err := os.Stat(filepath.Join(path, "go.mod"))
	return err == nil
}

type checker struct {
	root, module string
	pkgs         map[string]*symbols // by import path
}

// checkDir checks the non-test files of the package in dir, if any.
func (c *checker) checkDir(dir string) ([]Problem, error) {
	fset := token.NewFileSet()
	files, err := parseDir(fset, dir, parser.ParseComments)
	if err != nil || len(files) == 0 {
		return nil, err
	}
	dp, err := doc.NewFromFiles(fset, files, c.importPath(dir), doc.PreserveAST)
	if err != nil {
		return nil, err
	}
	own := symbolsOf(files)
	var problems []Problem
	for _, cm := range comments(dp, packageDocPos(files)) {
		for _, link := range c.unresolved(dp, own, cm.text) {
			problems = append(problems, Problem{Pos: position(fset, c.root, cm.pos), Link: link})
		}
	}
	return problems, nil
}

// packageDocPos returns where the package doc starts (the first file with
// one).
func packageDocPos(files []*ast.File) token.Pos {
	for _, f := range files {
		if f.Doc != nil {
			return f.Doc.Pos()
		}
	}
	return token.NoPos
}

func (c *checker) importPath(dir string) string {
	rel, _ := filepath.Rel(c.root, dir)
	if rel == "." {
		return c.module
	}
	return c.module + "/" + filepath.ToSlash(rel)
}

func position(fset *token.FileSet, root string, pos token.Pos) string {
	p := fset.Position(pos)
	rel, err := filepath.Rel(root, p.Filename)
	if err != nil {
		rel = p.Filename
	}
	return fmt.Sprintf("%s:%d", rel, p.Line)
}

// parseDir parses dir's .go files, tests excluded.
func parseDir(fset *token.FileSet, dir string, mode parser.Mode) ([]*ast.File, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []*ast.File
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, mode)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}

// unresolved returns the links of text that the package's parser resolves
// to nothing, or to a symbol its package lacks.
func (c *checker) unresolved(dp *doc.Package, own *symbols, text string) []string {
	p := dp.Parser()
	var bad []string
	lookupSym := p.LookupSym
	p.LookupSym = func(recv, name string) bool {
		if lookupSym(recv, name) || own.has(recv, name) {
			return true
		}
		bad = append(bad, join(recv, name))
		return false
	}
	lookupPkg := p.LookupPackage
	p.LookupPackage = func(name string) (string, bool) {
		path, ok := lookupPkg(name)
		if !ok {
			bad = append(bad, name+".?")
		}
		return path, ok
	}
	d := p.Parse(text)
	walkLinks(d, func(l *comment.DocLink) {
		if l.ImportPath == "" || l.ImportPath == dp.ImportPath {
			return
		}
		if !c.symbolsOf(l.ImportPath).has(l.Recv, l.Name) {
			bad = append(bad, l.ImportPath+"."+join(l.Recv, l.Name))
		}
	})
	return cleanBad(bad)
}

// cleanBad drops the candidates the comment parser tried and rejected for
// a reason of its own ("[pkg.?]" probes of words that are no packages).
func cleanBad(bad []string) []string {
	var out []string
	for _, b := range bad {
		if !strings.HasSuffix(b, ".?") {
			out = append(out, b)
		}
	}
	return out
}

func join(recv, name string) string {
	if recv == "" {
		return name
	}
	return recv + "." + name
}

// symbolsOf returns the exported symbols of the package at path: the
// module's own packages from their source, the standard library from
// GOROOT, anything else as "unknown" (every lookup succeeds).
func (c *checker) symbolsOf(path string) *symbols {
	if s, ok := c.pkgs[path]; ok {
		return s
	}
	var dir string
	switch {
	case path == c.module:
		dir = c.root
	case strings.HasPrefix(path, c.module+"/"):
		dir = filepath.Join(c.root, filepath.FromSlash(strings.TrimPrefix(path, c.module+"/")))
	case !strings.Contains(strings.SplitN(path, "/", 2)[0], "."):
		dir = filepath.Join(runtime.GOROOT(), "src", filepath.FromSlash(path))
	}
	s := &symbols{unknown: true}
	if dir != "" {
		if files, err := parseDir(token.NewFileSet(), dir, 0); err == nil && len(files) > 0 {
			s = symbolsOf(files)
		}
	}
	c.pkgs[path] = s
	return s
}
