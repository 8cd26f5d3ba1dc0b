package mysql_test

import (
	"os"
	"strings"
	"testing"

	"github.com/lock4go/lock4go/executors/mysql"
)

// TestSchema_docs: docs/mysql.md's appendix is the SQL of mysql.Schema for
// the default options. LOCK4GO_UPDATE_DOCS=1 writes it there.
func TestSchema_docs(t *testing.T) {
	const path = "../../docs/mysql.md"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	head, appendix, ok := strings.Cut(doc, "\n## Appendix: the schema\n")
	if !ok {
		t.Fatal(`docs/mysql.md has no section "Appendix: the schema"`)
	}
	intro, _, ok := strings.Cut(appendix, "```sql\n")
	if !ok {
		t.Fatal("the appendix has no SQL block")
	}
	sql, err := mysql.Schema(mysql.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := head + "\n## Appendix: the schema\n" + intro + "```sql\n" + sql + "```\n"
	if doc == want {
		return
	}
	if os.Getenv("LOCK4GO_UPDATE_DOCS") == "1" {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("docs/mysql.md's appendix differs from mysql.Schema(mysql.Options{}): run LOCK4GO_UPDATE_DOCS=1 go test -run TestSchema_docs ./executors/mysql/")
}
