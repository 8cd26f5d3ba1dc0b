package lifecycle

import (
	"io"
	"testing"
)

type closer struct{}

func (*closer) Close() error { return nil }

func TestIsNil(t *testing.T) {
	var nilCloser io.Closer
	for _, tc := range []struct {
		name string
		v    any
		want bool
	}{
		{"nil", nil, true},
		{"nil interface value", nilCloser, true},
		{"typed nil pointer", io.Closer((*closer)(nil)), true},
		{"typed nil map", map[string]int(nil), true},
		{"typed nil func", (func())(nil), true},
		{"pointer", &closer{}, false},
		{"struct", closer{}, false},
		{"int zero", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := IsNil(tc.v); got != tc.want {
				t.Errorf("IsNil(%#v) = %v, want %v", tc.v, got, tc.want)
			}
		})
	}
}
