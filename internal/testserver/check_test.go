package testserver

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// fakeTB records Skip and Fatal instead of ending the test.
type fakeTB struct {
	testing.TB
	skipped, failed string
}

func (f *fakeTB) Helper()              {}
func (f *fakeTB) Skip(args ...any)     { f.skipped = fmt.Sprint(args...) }
func (f *fakeTB) Fatal(args ...any)    { f.failed = fmt.Sprint(args...) }
func (f *fakeTB) Skipf(string, ...any) { panic("unexpected Skipf") }

func TestCheck(t *testing.T) {
	other := errors.New("boom")
	tests := []struct {
		name     string
		err      error
		require  string
		wantSkip bool
		wantFail bool
	}{
		{"nil", nil, "", false, false},
		{"nil required", nil, "1", false, false},
		{"not installed", notInstalled("redis-server"), "", true, false},
		{"not installed required", notInstalled("redis-server"), "1", false, true},
		{"other error", other, "", false, true},
		{"other error required", other, "1", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(RequireEnv, tt.require)
			f := &fakeTB{}
			Check(f, tt.err)
			if (f.skipped != "") != tt.wantSkip || (f.failed != "") != tt.wantFail {
				t.Fatalf("skipped %q failed %q; want skip %v fail %v", f.skipped, f.failed, tt.wantSkip, tt.wantFail)
			}
			if tt.wantSkip && !strings.Contains(f.skipped, "redis-server not installed: run `make setup`") {
				t.Fatalf("skip message %q does not name make setup", f.skipped)
			}
		})
	}
}
