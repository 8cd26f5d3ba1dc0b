package keybuilder

import (
	"testing"

	"github.com/lock4go/lock4go"
)

// WithMaxKeyLen is capped at the Template's own limit, which rejects longer
// keys; the two constants must agree.
func TestMaxKeyLen_matchesTemplate(t *testing.T) {
	if maxKeyLen != lock4go.MaxKeyLen {
		t.Fatalf("keybuilder caps keys at %d bytes, the Template at %d", maxKeyLen, lock4go.MaxKeyLen)
	}
}
