package size

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// Sizes are the sizes in bytes of the two services' binaries.
type Sizes struct {
	Lock, Plain int64 // lockhttp's and plainhttp's
}

// Ratio returns lockhttp's size over plainhttp's.
func (s Sizes) Ratio() float64 { return float64(s.Lock) / float64(s.Plain) }

// Measure builds lockhttp and plainhttp, the packages under dir (this
// package's directory), with go build -trimpath and default flags, in a
// temporary directory, and returns their sizes.
func Measure(ctx context.Context, dir string) (Sizes, error) {
	tmp, err := os.MkdirTemp("", "lock4go-size-*")
	if err != nil {
		return Sizes{}, err
	}
	defer os.RemoveAll(tmp)
	build := func(name string) (int64, error) {
		bin := filepath.Join(tmp, name)
		cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", bin, "./"+name)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return 0, fmt.Errorf("go build ./%s: %w\n%s", name, err, out)
		}
		fi, err := os.Stat(bin)
		if err != nil {
			return 0, err
		}
		return fi.Size(), nil
	}
	var s Sizes
	if s.Lock, err = build("lockhttp"); err != nil {
		return s, err
	}
	s.Plain, err = build("plainhttp")
	return s, err
}
