package keybuilder

import (
	"testing"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/internal/keyexpr"
)

// WithMaxKeyLen is capped at the Template's own limit, which rejects longer
// keys, and keys are hashed above DefaultMaxKeyLen: the constants must
// agree.
func TestMaxKeyLen_matchesTemplate(t *testing.T) {
	if maxKeyLen != lock4go.MaxKeyLen {
		t.Fatalf("keybuilder caps keys at %d bytes, the Template at %d", maxKeyLen, lock4go.MaxKeyLen)
	}
	if keyexpr.MaxLen != lock4go.MaxKeyLen {
		t.Fatalf("Join caps keys at %d bytes, the Template at %d", keyexpr.MaxLen, lock4go.MaxKeyLen)
	}
	if DefaultMaxKeyLen != keyexpr.HashLen {
		t.Fatalf("DefaultMaxKeyLen is %d, keys are hashed above %d", DefaultMaxKeyLen, keyexpr.HashLen)
	}
}
