package doccheck

import (
	"path/filepath"
	"testing"
)

// TestGlossary: every word used more than 20 times in the identifiers of
// the library code, general words aside, has an entry in the glossary of
// docs/design.md (one word per concept, said once).
func TestGlossary(t *testing.T) {
	root := repoRoot(t)
	missing, err := UnglossedWords(root, filepath.Join(root, "docs", "design.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range missing {
		t.Errorf("%q is used %d times in library code and has no entry in the glossary of docs/design.md (or add it to generalWords if it is no concept of lock4go)", w.Word, w.Uses)
	}
}

func TestSplitIdent(t *testing.T) {
	for id, want := range map[string]string{"refuseLateHTTP2": "refuse late http", "void_ttl": "void ttl", "WaitQueued": "wait queued", "ID": "id"} {
		got := ""
		for i, w := range splitIdent(id) {
			if i > 0 {
				got += " "
			}
			got += w
		}
		if got != want {
			t.Errorf("splitIdent(%q) = %q, want %q", id, got, want)
		}
	}
}
