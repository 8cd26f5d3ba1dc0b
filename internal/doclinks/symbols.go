package doclinks

import (
	"go/ast"
	"go/doc"
	"go/doc/comment"
	"go/token"
)

// symbols are a package's top-level names and its types' methods and
// fields, exported or not (a comment may link to its own package's
// unexported names).
type symbols struct {
	unknown bool                       // a package outside the module: accept every name
	top     map[string]bool            // consts, vars, funcs, types
	members map[string]map[string]bool // type -> methods and fields
}

func (s *symbols) has(recv, name string) bool {
	if s.unknown {
		return true
	}
	if recv == "" {
		return s.top[name]
	}
	return s.members[recv][name]
}

func symbolsOf(files []*ast.File) *symbols {
	s := &symbols{top: map[string]bool{}, members: map[string]map[string]bool{}}
	for _, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				s.addFunc(d)
			case *ast.GenDecl:
				s.addGen(d)
			}
		}
	}
	return s
}

func (s *symbols) member(typ, name string) {
	if s.members[typ] == nil {
		s.members[typ] = map[string]bool{}
	}
	s.members[typ][name] = true
}

func (s *symbols) addFunc(d *ast.FuncDecl) {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		s.top[d.Name.Name] = true
		return
	}
	if typ := recvName(d.Recv.List[0].Type); typ != "" {
		s.member(typ, d.Name.Name)
	}
}

func recvName(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

func (s *symbols) addGen(d *ast.GenDecl) {
	for _, spec := range d.Specs {
		switch sp := spec.(type) {
		case *ast.ValueSpec:
			for _, n := range sp.Names {
				s.top[n.Name] = true
			}
		case *ast.TypeSpec:
			s.top[sp.Name.Name] = true
			s.addMembers(sp.Name.Name, sp.Type)
		}
	}
}

// addMembers records the fields of a struct and the methods of an
// interface declared as typ.
func (s *symbols) addMembers(typ string, e ast.Expr) {
	var list *ast.FieldList
	switch t := e.(type) {
	case *ast.StructType:
		list = t.Fields
	case *ast.InterfaceType:
		list = t.Methods
	}
	if list == nil {
		return
	}
	for _, f := range list.List {
		for _, n := range f.Names {
			s.member(typ, n.Name)
		}
		if len(f.Names) == 0 { // embedded: its name is a field
			if n := recvName(f.Type); n != "" {
				s.member(typ, n)
			} else if sel, ok := f.Type.(*ast.SelectorExpr); ok {
				s.member(typ, sel.Sel.Name)
			}
		}
	}
}

// docComment is one doc comment of a package and where it starts.
type docComment struct {
	pos  token.Pos
	text string
}

// comments returns the package's doc comments: the package doc and the
// docs of its declarations, methods and struct fields.
func comments(p *doc.Package, pkgDoc token.Pos) []docComment {
	var out []docComment
	add := func(pos token.Pos, text string) {
		if text != "" {
			out = append(out, docComment{pos, text})
		}
	}
	add(pkgDoc, p.Doc)
	values := func(vs []*doc.Value) {
		for _, v := range vs {
			add(v.Decl.Pos(), v.Doc)
		}
	}
	funcs := func(fs []*doc.Func) {
		for _, f := range fs {
			add(f.Decl.Pos(), f.Doc)
		}
	}
	values(p.Consts)
	values(p.Vars)
	funcs(p.Funcs)
	for _, t := range p.Types {
		add(t.Decl.Pos(), t.Doc)
		values(t.Consts)
		values(t.Vars)
		funcs(t.Funcs)
		funcs(t.Methods)
		out = append(out, fieldDocs(t.Decl)...)
	}
	return out
}

// fieldDocs returns the docs of the fields or interface methods of a type
// declaration.
func fieldDocs(d *ast.GenDecl) []docComment {
	var out []docComment
	ast.Inspect(d, func(n ast.Node) bool {
		if f, ok := n.(*ast.Field); ok && f.Doc != nil {
			out = append(out, docComment{f.Doc.Pos(), f.Doc.Text()})
		}
		return true
	})
	return out
}

// walkLinks calls f for every doc link of d.
func walkLinks(d *comment.Doc, f func(*comment.DocLink)) {
	var texts func([]comment.Text)
	texts = func(ts []comment.Text) {
		for _, t := range ts {
			switch t := t.(type) {
			case *comment.DocLink:
				f(t)
				texts(t.Text)
			case *comment.Link:
				texts(t.Text)
			case comment.Italic, comment.Plain:
			}
		}
	}
	for _, b := range d.Content {
		switch b := b.(type) {
		case *comment.Paragraph:
			texts(b.Text)
		case *comment.List:
			for _, it := range b.Items {
				for _, ib := range it.Content {
					if p, ok := ib.(*comment.Paragraph); ok {
						texts(p.Text)
					}
				}
			}
		}
	}
}
