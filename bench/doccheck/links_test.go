package doccheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLinks: every relative link of README.md and docs/*.md names a file
// or directory of the repository, and its #anchor a heading of that file.
func TestLinks(t *testing.T) {
	root := repoRoot(t)
	probs, err := checkLinks(root, docFiles(t, root))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range probs {
		t.Error(p)
	}
}

// TestCheckLinks: a missing file and a missing anchor are reported at
// their line; anchors follow GitHub's rules (punctuation dropped, code and
// link marks taken off, repeats numbered); links in code, with a scheme,
// or to a directory are fine.
func TestCheckLinks(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"README.md": "# Top\n\n" +
			"[ok](docs/a.md#configuration-lock4j-property--lock4go) [dir](docs) [self](#top)\n" + // line 3
			"[gone](docs/gone.md) [bad](docs/a.md#debuglocks) `[code](nowhere.md)` [web](https://example.com/x#y)\n" + // line 4
			"```\n[fenced](nowhere.md)\n```\n" +
			"[repeat](docs/a.md#faq-1) [code heading](docs/a.md#lockerr-and-done) [linked](docs/a.md#the-redis-executor)\n", // line 8
		"docs/a.md": "# A\n\n## Configuration (Lock4j property → lock4go)\n\n## FAQ\n\n## FAQ\n\n## `Lock.Err` and `Done`\n\n## The [Redis](redis.md) executor\n",
	}
	for name, text := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	probs, err := checkLinks(dir, []string{"README.md"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"README.md:4: docs/gone.md: no such file or directory",
		"README.md:4: docs/a.md#debuglocks: no heading has the anchor #debuglocks",
	}
	if got := strings.Join(probs, "\n"); got != strings.Join(want, "\n") {
		t.Fatalf("problems:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
}
