package reliability

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// FenceFile is the name of the fencing-token store in a run's directory.
const FenceFile = "fence"

// FenceState is the content of a [Fence].
type FenceState struct {
	// Last is the highest token accepted so far (0 before the first).
	Last int64 `json:"last"`
	// Accepted and Rejected count the calls of [Fence.Accept] by outcome.
	Accepted int64 `json:"accepted"`
	Rejected int64 `json:"rejected"`
}

// Fence is the reference store of fencing tokens, standing for a resource
// that checks the tokens it is given (Kleppmann's fencing): it accepts a
// token not lower than the highest it has accepted and rejects a lower one.
// Every call runs under an exclusive flock of the file, so it is atomic
// across goroutines and processes. It is safe for concurrent use.
type Fence struct {
	path string
}

// NewFence returns the fence store in dir.
func NewFence(dir string) *Fence { return &Fence{path: filepath.Join(dir, FenceFile)} }

// Accept presents token. It reports whether the token was accepted, and
// the highest token accepted before this call.
func (f *Fence) Accept(token int64) (accepted bool, last int64, err error) {
	err = f.update(func(s *FenceState) {
		last = s.Last
		if token < s.Last {
			s.Rejected++
			return
		}
		accepted = true
		s.Last = token
		s.Accepted++
	})
	return accepted, last, err
}

// State returns the store's content.
func (f *Fence) State() (FenceState, error) {
	var st FenceState
	err := f.update(func(s *FenceState) { st = *s })
	return st, err
}

// update runs fn on the state under an exclusive flock and writes the state
// back.
func (f *Fence) update(fn func(*FenceState)) error {
	file, err := os.OpenFile(f.path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("reliability: fence: %w", err)
	}
	defer file.Close()
	fd := int(file.Fd())
	if err := syscall.Flock(fd, syscall.LOCK_EX); err != nil {
		return fmt.Errorf("reliability: fence flock: %w", err)
	}
	defer syscall.Flock(fd, syscall.LOCK_UN) //nolint:errcheck // closing the file unlocks too
	b, err := io.ReadAll(file)
	if err != nil {
		return fmt.Errorf("reliability: fence read: %w", err)
	}
	var s FenceState
	if text := strings.TrimSpace(string(b)); text != "" {
		if _, err := fmt.Sscan(text, &s.Last, &s.Accepted, &s.Rejected); err != nil {
			return fmt.Errorf("reliability: fence content %q: %w", text, err)
		}
	}
	before := s
	fn(&s)
	if s == before {
		return nil
	}
	out := fmt.Sprintf("%d %d %d\n", s.Last, s.Accepted, s.Rejected)
	if _, err := file.WriteAt([]byte(out), 0); err != nil {
		return fmt.Errorf("reliability: fence write: %w", err)
	}
	if err := file.Truncate(int64(len(out))); err != nil {
		return fmt.Errorf("reliability: fence write: %w", err)
	}
	return nil
}
