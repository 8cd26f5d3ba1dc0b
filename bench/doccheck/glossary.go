package doccheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"unicode"
)

// minGlossaryUses is how often a word must be used in library code for
// the glossary to owe it an entry.
const minGlossaryUses = 20

// notLibrary are the directories whose code is not library code: test
// helpers, commands, nested modules and the test data.
var notLibrary = regexp.MustCompile(`^(bench|examples|cmd|internal/(testserver|reliability|testkey|testlog|testwait|mwtest|timerprobe|doclinks)|executor/executortest|jobs/jobstest|testdata)(/|$)`)

// WordUse is a word of the identifiers of library code and how often it
// is used.
type WordUse struct {
	Word string
	Uses int
}

// UnglossedWords returns the words used more than minGlossaryUses times in
// the identifiers of the library code under root (split at case changes
// and underscores, lower-cased; non-test files outside notLibrary) that are not
// general words (generalWords) and that no entry of the glossary at
// glossary names in its first column (a word, or the same with or without
// a final s), most used first.
func UnglossedWords(root, glossary string) ([]WordUse, error) {
	counts, err := countWords(root)
	if err != nil {
		return nil, err
	}
	named, err := glossaryWords(glossary)
	if err != nil {
		return nil, err
	}
	var out []WordUse
	for w, n := range counts {
		if n <= minGlossaryUses || len(w) < 2 || generalWords[w] {
			continue
		}
		if !named[w] && !named[strings.TrimSuffix(w, "s")] && !named[w+"s"] {
			out = append(out, WordUse{w, n})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Uses > out[j].Uses })
	return out, nil
}

// countWords counts the words of every identifier in the library code
// under root.
func countWords(root string) (map[string]int, error) {
	counts := map[string]int{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			if rel != "." && (notLibrary.MatchString(filepath.ToSlash(rel)) || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				for _, w := range splitIdent(id.Name) {
					counts[w]++
				}
			}
			return true
		})
		return nil
	})
	return counts, err
}

// splitIdent cuts an identifier into lower-case words at case changes,
// underscores and digits: "WaitQueued" is wait, queued; "void_TTL2" is
// void, ttl.
func splitIdent(id string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(id)
	for i, r := range rs {
		switch {
		case r == '_' || unicode.IsDigit(r):
			flush()
			continue
		case unicode.IsUpper(r) && len(cur) > 0 && (unicode.IsLower(cur[len(cur)-1]) || (i+1 < len(rs) && unicode.IsLower(rs[i+1]))):
			flush()
		}
		cur = append(cur, r)
	}
	flush()
	return words
}

// glossaryWords returns the lower-cased words of the first column of the
// glossary's table rows (those starting "| **").
func glossaryWords(path string) (map[string]bool, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, "| **") {
			continue
		}
		cell := strings.SplitN(line, "|", 3)[1]
		for _, w := range strings.FieldsFunc(strings.ToLower(cell), func(r rune) bool { return !unicode.IsLetter(r) }) {
			m[w] = true
		}
	}
	return m, nil
}
