package doccheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"slices"
	"strings"
)

// unit is a block made into a package: its files, by name.
type unit struct {
	b     block
	files map[string]string
}

// generated names the lines a unit adds after a block's own, in compiler
// messages.
const generated = "doccheck-generated.go"

// makeUnit turns b into the files of package pkg: a program (a block that
// starts with its package clause) as it is; otherwise declarations, or a
// function body, after the imports the block opens with, with the imports
// and givens it uses inferred. abs is b's Markdown file, absolute, for the
// //line directives that make the compiler report positions in it.
func makeUnit(b block, pkg, abs string) unit {
	u := unit{b: b, files: map[string]string{}}
	if isProgram(b.code) {
		u.files["main.go"] = lineDirective(abs, b.line) + b.code
		return u
	}
	imps, body, skipped := splitImports(b.code)
	at := lineDirective(abs, b.line+skipped)
	head := "package " + pkg + "\n\n" + imps + "\n"
	src := head + at + body
	f, err := parser.ParseFile(token.NewFileSet(), "", src, 0)
	if err != nil { // not declarations: a function body
		src, f = wrapBody(head, at, body)
	}
	names := unresolved(f)
	var needed []string
	for _, n := range names {
		if _, ok := givens[n]; ok {
			needed = append(needed, n)
		}
	}
	u.files["block.go"] = importsFor(pkg, names, f) + strings.TrimPrefix(src, "package "+pkg+"\n")
	if len(needed) > 0 {
		u.files["givens.go"] = givensFile(pkg, needed)
	}
	return u
}

// isProgram reports whether code starts, after comments, with a package
// clause.
func isProgram(code string) bool {
	for line := range strings.Lines(code) {
		l := strings.TrimSpace(line)
		switch {
		case l == "", strings.HasPrefix(l, "//"):
			continue
		case strings.HasPrefix(l, "package "):
			return true
		}
		return false
	}
	return false
}

// splitImports splits the import declarations a block opens with from the
// rest, and returns how many lines they took.
func splitImports(code string) (imps, rest string, lines int) {
	var b strings.Builder
	inGroup := false
	for line := range strings.Lines(code) {
		l := strings.TrimSpace(line)
		switch {
		case inGroup:
			inGroup = l != ")"
		case l == "import (":
			inGroup = true
		case l == "" || strings.HasPrefix(l, "import "):
		default:
			return b.String(), code[b.Len():], lines
		}
		b.WriteString(line)
		lines++
	}
	return b.String(), "", lines
}

func lineDirective(file string, line int) string {
	return fmt.Sprintf("//line %s:%d:1\n", file, line)
}

// wrapBody makes body the body of a function: one returning an error when
// body returns a value, with a use of every variable body declares at its
// top level (a block shows how to get a value, not always what to do with
// it). It returns the source and its parse (nil when body does not parse).
func wrapBody(head, at, body string) (string, *ast.File) {
	try := head + "func _() {\n" + at + body + "}\n"
	f, err := parser.ParseFile(token.NewFileSet(), "", try, 0)
	if err != nil {
		return try, nil // the compiler reports the syntax error at its line
	}
	fn := f.Decls[len(f.Decls)-1].(*ast.FuncDecl)
	sig, tail := "func _() {\n", ""
	if returnsValue(fn.Body) {
		sig, tail = "func _() error {\n", "\treturn nil\n"
	}
	uses := ""
	for _, n := range topLevelVars(fn.Body) {
		uses += "\t_ = " + n + "\n"
	}
	src := head + sig + at + body + "//line " + generated + ":1:1\n" + uses + tail + "}\n"
	f, _ = parser.ParseFile(token.NewFileSet(), "", src, 0)
	return src, f
}

// returnsValue reports whether body returns a value (outside the function
// literals in it).
func returnsValue(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			found = found || len(n.Results) > 0
		}
		return !found
	})
	return found
}

// topLevelVars returns the variables declared by body's own statements.
func topLevelVars(body *ast.BlockStmt) []string {
	var names []string
	add := func(id *ast.Ident) {
		if id.Name != "_" && !slices.Contains(names, id.Name) {
			names = append(names, id.Name)
		}
	}
	for _, s := range body.List {
		switch s := s.(type) {
		case *ast.AssignStmt:
			if s.Tok == token.DEFINE {
				for _, e := range s.Lhs {
					if id, ok := e.(*ast.Ident); ok {
						add(id)
					}
				}
			}
		case *ast.DeclStmt:
			if g, ok := s.Decl.(*ast.GenDecl); ok && g.Tok == token.VAR {
				for _, sp := range g.Specs {
					for _, id := range sp.(*ast.ValueSpec).Names {
						add(id)
					}
				}
			}
		}
	}
	return names
}

// unresolved returns the names f uses without declaring them, predeclared
// ones (int, len, nil) aside, sorted. A nil f has none.
func unresolved(f *ast.File) []string {
	if f == nil {
		return nil
	}
	var names []string
	for _, id := range f.Unresolved {
		if types.Universe.Lookup(id.Name) == nil && !slices.Contains(names, id.Name) {
			names = append(names, id.Name)
		}
	}
	slices.Sort(names)
	return names
}

// importsFor returns the package clause of pkg and an import declaration
// of the packages among names that f does not import itself.
func importsFor(pkg string, names []string, f *ast.File) string {
	have := map[string]bool{} // names and paths f imports
	if f != nil {
		for _, s := range f.Imports {
			p := strings.Trim(s.Path.Value, `"`)
			have[p] = true
			if s.Name != nil {
				have[s.Name.Name] = true
			} else {
				have[lastElem(p)] = true
			}
		}
	}
	var b strings.Builder
	b.WriteString("package " + pkg + "\n\nimport (\n")
	for _, n := range names {
		if p, ok := imports[n]; ok && !have[n] && !have[p] {
			fmt.Fprintf(&b, "\t%s %q\n", n, p)
		}
	}
	b.WriteString(")\n")
	return b.String()
}

// givensFile declares the givens names as package-level variables.
func givensFile(pkg string, names []string) string {
	var pkgs []string
	for _, n := range names {
		for _, p := range givens[n].pkgs {
			if !slices.Contains(pkgs, p) {
				pkgs = append(pkgs, p)
			}
		}
	}
	var b strings.Builder
	b.WriteString(importsFor(pkg, pkgs, nil) + "\nvar (\n")
	for _, n := range names {
		fmt.Fprintf(&b, "\t%s %s\n", n, givens[n].typ)
	}
	b.WriteString(")\n")
	return b.String()
}

// lastElem guesses the name of the package at path: its last element, or
// the one before a major version suffix (/v4).
func lastElem(path string) string {
	elems := strings.Split(path, "/")
	last := elems[len(elems)-1]
	if len(elems) > 1 && len(last) > 1 && last[0] == 'v' && strings.Trim(last[1:], "0123456789") == "" {
		last = elems[len(elems)-2]
	}
	return last
}
