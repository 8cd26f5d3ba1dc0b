package reliability

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// RecordFile is the name of the shared record in a run's directory.
const RecordFile = "record"

// Record is the shared resource the lock protects: a file holding one
// counter. Reads and writes take no OS lock on purpose; only the
// distributed lock keeps two holders from a read-modify-write at once, so a
// lost update shows that it failed. A write replaces the file by rename, so
// a reader never sees a torn value. It is safe for concurrent use in the
// sense that it never corrupts the file; it is not atomic.
type Record struct {
	path string
}

// NewRecord returns the record in dir.
func NewRecord(dir string) *Record { return &Record{path: filepath.Join(dir, RecordFile)} }

// Read returns the counter; a missing file reads as 0.
func (r *Record) Read() (int64, error) {
	b, err := os.ReadFile(r.path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("reliability: read record: %w", err)
	}
	v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("reliability: record %q: %w", b, err)
	}
	return v, nil
}

// Write sets the counter to v. tag makes the temporary file unique to the
// writer (process and goroutine).
func (r *Record) Write(v int64, tag string) error {
	tmp := r.path + ".tmp." + tag
	if err := os.WriteFile(tmp, []byte(strconv.FormatInt(v, 10)+"\n"), 0o644); err != nil {
		return fmt.Errorf("reliability: write record: %w", err)
	}
	if err := os.Rename(tmp, r.path); err != nil {
		return fmt.Errorf("reliability: write record: %w", err)
	}
	return nil
}
