package lockdebug

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestReason_masksCredentials(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"dial redis://alice:s3cret@10.0.0.1:6379: refused", "dial redis://***@10.0.0.1:6379: refused"},
		{"etcd http://root:pw@etcd:2379 unavailable", "etcd http://***@etcd:2379 unavailable"},
		{"auth failed: password=hunter2, user=bob", "auth failed: password=***, user=bob"},
		{"Secret: abc def", "Secret: *** def"},
		{"lock4go: lock \"k\" on redis: not acquired", "lock4go: lock \"k\" on redis: not acquired"},
	}
	for _, tc := range tests {
		if got := reason(errors.New(tc.in)); got != tc.want {
			t.Errorf("reason(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	long := reason(errors.New(strings.Repeat("é", 400)))
	if len(long) > maxReason+len("…") || !strings.HasSuffix(long, "…") || !utf8.ValidString(long) {
		t.Errorf("long reason cut to %d bytes: %q", len(long), long[len(long)-8:])
	}
	if reason(nil) != "" {
		t.Error("reason(nil) is not empty")
	}
}

func TestFmtMS(t *testing.T) {
	tests := map[float64]string{0: "0", 0.85: "850µs", 12.34: "12.3ms", 4200: "4.2s", 192000: "3m12s"}
	for in, want := range tests {
		if got := fmtMS(in); got != want {
			t.Errorf("fmtMS(%v) = %q, want %q", in, got, want)
		}
	}
}
