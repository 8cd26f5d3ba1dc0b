package exectest

import (
	"os"
	"strings"
	"testing"
)

// SQLBlocks returns the SQL code blocks (```sql) of the section of the
// Markdown file path whose heading is "## "+section, up to the next
// "## " heading; it fails t unless there are want of them. The executors'
// tests run the grants their docs list exactly as written.
func SQLBlocks(t *testing.T, path, section string, want int) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "\n## "+section+"\n")
	if !ok {
		t.Fatalf("%s has no section %q", path, section)
	}
	rest, _, _ = strings.Cut(rest, "\n## ")
	var blocks []string
	for {
		var block string
		if _, rest, ok = strings.Cut(rest, "```sql\n"); !ok {
			break
		}
		block, rest, _ = strings.Cut(rest, "```")
		blocks = append(blocks, block)
	}
	if len(blocks) != want {
		t.Fatalf("%s, %q: %d SQL blocks, want %d", path, section, len(blocks), want)
	}
	return blocks
}
