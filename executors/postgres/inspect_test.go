package postgres_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lock4go/lock4go/executor"
)

// TestInspect_invalidKey: Inspect and ForceRelease refuse a key
// PostgreSQL's text cannot hold as Acquire does, with ErrInvalidKey and
// no round trip, instead of sending it and failing with SQLSTATE 22021
// (ErrBackend).
func TestInspect_invalidKey(t *testing.T) {
	e := direct(t)
	for _, key := range []string{"", "a\x00b", "a\xffb", strings.Repeat("k", 2049)} {
		if _, err := e.Inspect(t.Context(), key); !errors.Is(err, executor.ErrInvalidKey) {
			t.Errorf("Inspect(%.20q) = %.300v, want ErrInvalidKey", key, err)
		}
		h := executor.Holder{Owner: "someone"}
		if err := e.ForceRelease(t.Context(), key, h); !errors.Is(err, executor.ErrInvalidKey) {
			t.Errorf("ForceRelease(%.20q) = %.300v, want ErrInvalidKey", key, err)
		}
		if _, err := e.Acquire(t.Context(), req(key, time.Second)); !errors.Is(err, executor.ErrInvalidKey) {
			t.Errorf("Acquire(%.20q) = %.300v, want ErrInvalidKey", key, err)
		}
	}
}
