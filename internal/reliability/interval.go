package reliability

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// Kinds of log lines.
const (
	// KindAcquired is written the moment a holder gets the lock, so a test
	// can act on it (pause or kill the process) while the lock is held.
	KindAcquired = "acquired"
	// KindInterval is written when the holder stops believing it holds the
	// lock; it carries the whole interval.
	KindInterval = "interval"
)

// Interval is one believed-held interval of one holder, as logged.
// Times are wall-clock nanoseconds since the Unix epoch, comparable across
// processes of one machine.
type Interval struct {
	Kind string `json:"kind"`
	// ID names the process (--id); PID and G are its process id and the
	// holder goroutine; Seq counts the goroutine's acquisitions.
	ID  string `json:"id"`
	PID int    `json:"pid"`
	G   int    `json:"g"`
	Seq int    `json:"seq"`

	Key   string `json:"key"`
	Token int64  `json:"token"`
	// Shared marks a read lock, Permit a permit of a semaphore: readers
	// may overlap readers, and up to n permits each other.
	Shared bool `json:"shared,omitempty"`
	Permit bool `json:"permit,omitempty"`
	// Start is when Lock returned (or Do's function started); End is when
	// the holder stopped acting as holder: just before it called Release,
	// or when it observed the loss of the lock, whichever came first.
	Start int64 `json:"start"`
	End   int64 `json:"end,omitempty"`
	// LostAt is when the holder observed ErrLockLost (its context was
	// cancelled with that cause); 0 if it never did.
	LostAt  int64  `json:"lost_at,omitempty"`
	LostErr string `json:"lost_err,omitempty"`

	// LeaseLeft is how long the lock's lease had left by the local clock
	// when the hold began (Template.Snapshot; 0 when it does not say, or
	// the backend keeps the lease alive): the lease counts from when the
	// granting attempt was sent, so a slow answer leaves the holder less
	// of it.
	LeaseLeft int64 `json:"lease_left,omitempty"`

	// Read is the record value read at the start of the hold; ReadAt is
	// when that read returned (0 in logs from before it was recorded).
	Read   int64 `json:"read"`
	ReadAt int64 `json:"read_at,omitempty"`
	// Wrote: the fence accepted the token and the record was set to Read+1.
	Wrote bool `json:"wrote,omitempty"`
	// Rejected: the fence rejected the token as stale; nothing was written.
	Rejected bool `json:"rejected,omitempty"`
	// FenceLast is the highest token the fence had accepted before this
	// holder presented its own.
	FenceLast int64 `json:"fence_last,omitempty"`
	// Aborted: the loss was observed during the hold, so the holder gave up
	// without presenting its token (a well-behaved application).
	Aborted bool `json:"aborted,omitempty"`
	// Void: the lock had already ended when the hold began (its Err was not
	// nil right after Start was sampled), so it was never held.
	Void bool `json:"void,omitempty"`
	// LastHeld is the time sampled right before the last Err of the lock's
	// context that answered nil: the holder's last "held" answer. Holders
	// ask when the hold begins and right before they write (every
	// millisecond with --sample).
	LastHeld int64 `json:"last_held,omitempty"`
	// Samples counts the held answers of a sampling hold; Gap is the
	// longest time between two of its samples (a pause of the process),
	// and HeldAfterGap counts the held answers after it.
	Samples      int   `json:"samples,omitempty"`
	Gap          int64 `json:"gap_ns,omitempty"`
	HeldAfterGap int   `json:"held_after_gap,omitempty"`

	// ReleaseErr is the error of Release ("" for none); ReleaseNotHeld
	// tells whether it wraps ErrLockNotHeld.
	ReleaseErr     string `json:"release_err,omitempty"`
	ReleaseNotHeld bool   `json:"release_not_held,omitempty"`
	// ReleasedAt is when Release returned.
	ReleasedAt int64 `json:"released_at,omitempty"`
}

// Believed returns the end of the believed-held interval: End, or LostAt
// when that came first.
func (iv Interval) Believed() int64 {
	end := iv.End
	if iv.LostAt != 0 && (end == 0 || iv.LostAt < end) {
		end = iv.LostAt
	}
	return end
}

// Log appends JSON lines to a process's interval file. Every line is one
// unbuffered write, so a killed process loses at most the line it was
// writing. It is safe for concurrent use.
type Log struct {
	mu sync.Mutex
	f  *os.File
}

// LogPattern matches the interval files of a run's directory.
const LogPattern = "intervals-*.jsonl"

// LogPath returns the interval file of process id in dir.
func LogPath(dir, id string) string { return filepath.Join(dir, "intervals-"+id+".jsonl") }

// CreateLog creates (or appends to) the interval file of process id.
func CreateLog(dir, id string) (*Log, error) {
	f, err := os.OpenFile(LogPath(dir, id), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("reliability: interval log: %w", err)
	}
	return &Log{f: f}, nil
}

// Write appends iv as one line.
func (l *Log) Write(iv Interval) error {
	b, err := json.Marshal(iv)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := l.f.Write(b); err != nil {
		return fmt.Errorf("reliability: interval log: %w", err)
	}
	return nil
}

// Close closes the file.
func (l *Log) Close() error { return l.f.Close() }

// ReadLogs reads every interval file in dir. It returns the acquired
// events and the completed intervals, each sorted by start.
func ReadLogs(dir string) (acquired, intervals []Interval, err error) {
	files, err := filepath.Glob(filepath.Join(dir, LogPattern))
	if err != nil {
		return nil, nil, err
	}
	for _, path := range files {
		f, err := os.Open(path)
		if err != nil {
			return nil, nil, fmt.Errorf("reliability: %w", err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		line := 0
		for sc.Scan() {
			line++
			text := strings.TrimSpace(sc.Text())
			if text == "" {
				continue
			}
			var iv Interval
			if err := json.Unmarshal([]byte(text), &iv); err != nil {
				// The last line of a killed process may be torn.
				continue
			}
			switch iv.Kind {
			case KindAcquired:
				acquired = append(acquired, iv)
			case KindInterval:
				intervals = append(intervals, iv)
			}
		}
		err = sc.Err()
		f.Close()
		if err != nil {
			return nil, nil, fmt.Errorf("reliability: %s: %w", path, err)
		}
	}
	byStart := func(s []Interval) {
		sort.Slice(s, func(i, j int) bool { return s[i].Start < s[j].Start })
	}
	byStart(acquired)
	byStart(intervals)
	return acquired, intervals, nil
}

// ns returns t as wall-clock nanoseconds since the Unix epoch.
func ns(t time.Time) int64 { return t.UnixNano() }

// fromNS is the inverse of ns.
func fromNS(n int64) time.Time { return time.Unix(0, n) }
