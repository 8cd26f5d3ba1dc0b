package mysql_test

import (
	"testing"

	"github.com/lock4go/lock4go/executors/mysql"
	"github.com/lock4go/lock4go/internal/exectest"
)

// TestSchema_docs: docs/mysql.md's appendix is the SQL of mysql.Schema for
// the default options. LOCK4GO_UPDATE_DOCS=1 writes it there.
func TestSchema_docs(t *testing.T) {
	sql, err := mysql.Schema(mysql.Options{})
	if err != nil {
		t.Fatal(err)
	}
	exectest.SchemaAppendix(t, "../../docs/mysql.md", sql, "LOCK4GO_UPDATE_DOCS=1 go test -run TestSchema_docs ./executors/mysql/")
}
