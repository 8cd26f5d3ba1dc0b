package jobs_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/lock4go/lock4go/internal/reliability"
)

// The fleet tests run jobfleet processes, each a gocron v2 scheduler with
// a gocronlock.Locker, against one server.

var (
	fleetOnce sync.Once
	fleetBin  string
	fleetErr  error
)

// jobfleet builds the jobfleet program once.
func jobfleet(t *testing.T) string {
	t.Helper()
	fleetOnce.Do(func() {
		dir, err := os.MkdirTemp("", "lock4go-jobfleet-*")
		if err != nil {
			fleetErr = err
			return
		}
		fleetBin = filepath.Join(dir, "jobfleet")
		if out, err := exec.Command("go", "build", "-o", fleetBin, "./internal/jobfleet").CombinedOutput(); err != nil {
			fleetErr = fmt.Errorf("go build jobfleet: %v: %s", err, out)
		}
	})
	if fleetErr != nil {
		t.Fatal(fleetErr)
	}
	return fleetBin
}

// record is one line a jobfleet process printed.
type record struct {
	Ev    string `json:"ev"`
	Tick  int64  `json:"tick"`
	Token int64  `json:"token"`
	Start int64  `json:"start"`
	// Fired is when the scheduler asked for a short job's lock.
	Fired int64 `json:"fired"`
	End   int64 `json:"end"`
	At    int64 `json:"at"`
	OK    bool  `json:"ok"`
	Late  bool  `json:"late"`
	// LateMs is how late the process's timers ran in the 1.5s before a run
	// (in the 2s before a loss).
	LateMs int64 `json:"latems"`
	// Err is why a lock was lost, or not taken.
	Err string `json:"err"`
	// Backend says that a lock was not taken because the backend did not
	// answer (lock4go.ErrBackend), not because the job was taken.
	Backend bool `json:"backend"`
	proc    int
}

// instance is one jobfleet process and the records it printed so far.
type instance struct {
	cmd  *exec.Cmd
	mu   sync.Mutex
	recs []record
	news chan struct{}
}

// startFleet starts one jobfleet process per offset against b, with the
// extra arguments, and waits until each scheduler is ready.
func startFleet(t *testing.T, b *backend, offsets []time.Duration, extra ...string) []*instance {
	t.Helper()
	bin := jobfleet(t)
	ns := ""
	switch b.kind {
	case reliability.ZooKeeper:
		ns = "/" + strings.ReplaceAll(t.Name(), "/", "-")
	case reliability.Etcd:
		ns = t.Name() + "/"
	}
	job := "fleet:" + t.Name() + ":" + fmt.Sprint(time.Now().UnixNano())
	var out []*instance
	for i, off := range offsets {
		args := append([]string{"-backend", b.kind, "-addr", strings.Join(b.addrs(), ","), "-namespace", ns,
			"-job", job, "-offset", off.String()}, extra...)
		in := &instance{cmd: exec.Command(bin, args...), news: make(chan struct{}, 1)}
		in.cmd.Stderr = os.Stderr
		in.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		stdout, err := in.cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := in.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = in.cmd.Process.Signal(syscall.SIGCONT); _ = in.cmd.Process.Kill(); _ = in.cmd.Wait() })
		go in.read(bufio.NewScanner(stdout), i)
		out = append(out, in)
	}
	for _, in := range out {
		in.await(t, 30*time.Second, "ready", func(r record) bool { return r.Ev == "ready" })
	}
	return out
}

func (in *instance) read(s *bufio.Scanner, proc int) {
	for s.Scan() {
		var r record
		if json.Unmarshal(s.Bytes(), &r) != nil {
			continue
		}
		r.proc = proc
		in.mu.Lock()
		in.recs = append(in.recs, r)
		in.mu.Unlock()
		select {
		case in.news <- struct{}{}:
		default:
		}
	}
}

// records returns the records in printed so far.
func (in *instance) records() []record {
	in.mu.Lock()
	defer in.mu.Unlock()
	return append([]record(nil), in.recs...)
}

// await waits up to d for a record that match accepts, and returns it.
func (in *instance) await(t *testing.T, d time.Duration, what string, match func(record) bool) record {
	t.Helper()
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		for _, r := range in.records() {
			if match(r) {
				return r
			}
		}
		select {
		case <-in.news:
		case <-timer.C:
			t.Fatalf("no %s within %v", what, d)
		}
	}
}

// awaitAny waits for a record of any of ins that match accepts.
func awaitAny(t *testing.T, ins []*instance, d time.Duration, what string, match func(record) bool) record {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		for _, in := range ins {
			for _, r := range in.records() {
				if match(r) {
					return r
				}
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no %s within %v", what, d)
	return record{}
}

// fleetBackends are the backends the fleet tests run on.
func fleetBackends(t *testing.T, fn func(t *testing.T, b *backend)) {
	forEach(t, func(t *testing.T, b *backend) {
		switch b.kind {
		case reliability.Memory, reliability.Redlock:
			t.Skip("the fleet runs on Redis, etcd, ZooKeeper and PostgreSQL")
		}
		fn(t, b)
	})
}
