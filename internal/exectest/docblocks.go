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

// SchemaAppendix checks that the section "## Appendix: the schema" of the
// Markdown file path ends with one SQL block holding sql, the schema of
// the default options, and fails t if not. With LOCK4GO_UPDATE_DOCS=1 in
// the environment it writes the block there instead; rerun is the command
// that does it, named in the failure.
func SchemaAppendix(t *testing.T, path, sql, rerun string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	const heading = "\n## Appendix: the schema\n"
	head, appendix, ok := strings.Cut(doc, heading)
	if !ok {
		t.Fatalf("%s has no section %q", path, strings.TrimSpace(heading))
	}
	intro, _, ok := strings.Cut(appendix, "```sql\n")
	if !ok {
		t.Fatalf("%s: the appendix has no SQL block", path)
	}
	want := head + heading + intro + "```sql\n" + sql + "```\n"
	if doc == want {
		return
	}
	if os.Getenv("LOCK4GO_UPDATE_DOCS") == "1" {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s's appendix differs from the schema of the default options: run %s", path, rerun)
}
