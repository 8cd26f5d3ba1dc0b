package reliability

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lock4go/lock4go/internal/testwait"
)

// proc is one lockcheck process.
type proc struct {
	id     string
	cmd    *exec.Cmd
	stdout bytes.Buffer
	errLog string
	// raceLog is where the race detector writes, when lockcheck has it;
	// raceRead is set once it was read.
	raceLog  string
	raceRead bool
	done     chan struct{}
	err      error
}

// run is one multi-process run: its directory and the common arguments
// of its lockcheck processes.
type run struct {
	dir    string
	common []string
	procs  []*proc
}

// newRun prepares a run in a fresh directory against b; key is the lock
// key every process competes for.
func newRun(t *testing.T, b Backend, key string, lease time.Duration) *run {
	t.Helper()
	if lockcheckErr != nil {
		t.Fatal(lockcheckErr)
	}
	r := &run{
		dir: t.TempDir(),
		common: []string{
			"--backend", b.Kind, "--addr", strings.Join(b.Addrs, ","),
			"--namespace", b.Namespace, "--session", b.Session.String(),
			"--lease", lease.String(), "--key", key,
		},
	}
	// Registered before any process's cleanup, so run after them all: the
	// processes nobody waited for (killed, paused, stopped) have ended.
	t.Cleanup(func() {
		for _, p := range r.procs {
			if !p.raceRead {
				if races := p.races(t); races != "" {
					t.Errorf("lockcheck %s, not waited for, reported a data race:%s", p.id, races)
				}
			}
		}
	})
	return r
}

// start launches a lockcheck process named id with extra arguments.
func (r *run) start(t *testing.T, id string, args ...string) *proc {
	t.Helper()
	all := append(append([]string{"--dir", r.dir, "--id", id}, r.common...), args...)
	p := &proc{id: id, cmd: exec.Command(lockcheckBin, all...), done: make(chan struct{})}
	p.errLog = filepath.Join(r.dir, "stderr-"+id+".log")
	f, err := os.Create(p.errLog)
	if err != nil {
		t.Fatal(err)
	}
	p.raceLog = raceLogPath(r.dir, id)
	p.cmd.Env = append(os.Environ(), raceEnv(p.raceLog))
	p.cmd.Stdout = &p.stdout
	p.cmd.Stderr = f
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := p.cmd.Start(); err != nil {
		f.Close()
		t.Fatal(err)
	}
	go func() {
		p.err = p.cmd.Wait()
		f.Close()
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = p.cmd.Process.Signal(syscall.SIGCONT)
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	})
	r.procs = append(r.procs, p)
	return p
}

// signal sends sig to the process.
func (p *proc) signal(t *testing.T, sig syscall.Signal) time.Time {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatalf("signal %v to %s: %v", sig, p.id, err)
	}
	return time.Now()
}

// stopped waits until every thread of the process is stopped, after a
// SIGSTOP: the signal stops each thread only as that thread next enters
// the kernel or is scheduled, so on a busy machine a thread already
// running (one that reads the wake of a release, say) goes on for a
// while. It returns when the last one is seen stopped.
func (p *proc) stopped(t *testing.T) time.Time {
	t.Helper()
	dir := fmt.Sprintf("/proc/%d/task", p.cmd.Process.Pid)
	all := func() bool {
		tasks, err := os.ReadDir(dir)
		if err != nil {
			t.Fatalf("%s: %v", p.id, err)
		}
		for _, task := range tasks {
			stat, err := os.ReadFile(filepath.Join(dir, task.Name(), "stat"))
			if err != nil {
				return false // a thread that just ended: look again
			}
			// The state follows the command's closing parenthesis.
			i := bytes.LastIndexByte(stat, ')')
			if i < 0 || i+2 >= len(stat) || (stat[i+2] != 'T' && stat[i+2] != 't') {
				return false
			}
		}
		return true
	}
	if !testwait.Every(10*time.Second, time.Millisecond, all) {
		t.Fatalf("%s is not stopped 10s after SIGSTOP", p.id)
	}
	return time.Now()
}

// stop asks the process to end its run (SIGTERM); a process that has
// already exited is left alone.
func (p *proc) stop() {
	select {
	case <-p.done:
	default:
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
	}
}

// wait waits for the process to exit and returns its report. A process
// that reports violations, or fails otherwise, fails the test unless
// allowFail is set.
func (p *proc) wait(t *testing.T, timeout time.Duration, allowFail bool) Report {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(timeout):
		_ = p.cmd.Process.Kill()
		<-p.done
		t.Fatalf("lockcheck %s still running after %v; stderr:\n%s", p.id, timeout, p.stderr())
	}
	var rep Report
	if err := json.Unmarshal(p.stdout.Bytes(), &rep); err != nil && !allowFail {
		t.Fatalf("lockcheck %s: %v (exit %v); stdout %q; stderr:\n%s", p.id, err, p.err, p.stdout.String(), p.stderr())
	}
	races := p.races(t)
	if p.err != nil && !allowFail {
		t.Errorf("lockcheck %s: %v; violations %q; stderr:\n%s%s", p.id, p.err, rep.Violations, p.stderr(), races)
	}
	return rep
}

// races reads the process's race log once it has exited. When the race
// detector's exit code is owed only to known races of a dependency
// (racelog_test.go), it logs them and clears the process's error. It
// returns the other reports, whole, for a failure message.
func (p *proc) races(t *testing.T) string {
	t.Helper()
	p.raceRead = true
	known, others, err := raceVerdict(p.raceLog)
	if err != nil {
		t.Errorf("lockcheck %s: reading its race log: %v", p.id, err)
		return ""
	}
	for _, what := range known {
		t.Logf("lockcheck %s: the race detector reported %s: not lock4go's, excused", p.id, what)
	}
	if len(others) == 0 {
		if len(known) > 0 && exitedWith(p.err, raceExitCode) {
			p.err = nil
		}
		return ""
	}
	return "\nits race reports:\n" + strings.Join(others, "\n\n")
}

// stderr returns the last lines of the process's stderr.
func (p *proc) stderr() string {
	b, _ := os.ReadFile(p.errLog)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > 30 {
		lines = lines[len(lines)-30:]
	}
	return strings.Join(lines, "\n")
}

// waitAll waits for every process of the run and returns their reports.
func (r *run) waitAll(t *testing.T, timeout time.Duration) []Report {
	t.Helper()
	reps := make([]Report, len(r.procs))
	for i, p := range r.procs {
		reps[i] = p.wait(t, timeout, false)
	}
	return reps
}

// acquiredBy polls the run's logs until process id has logged an
// acquisition after since, and returns it.
func (r *run) acquiredBy(t *testing.T, id string, since time.Time, timeout time.Duration) Interval {
	t.Helper()
	var got Interval
	ok := testwait.Every(timeout, 2*time.Millisecond, func() bool {
		acq, _, err := ReadLogs(r.dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range acq {
			if ev.ID == id && ev.Start >= ns(since) {
				got = ev
				return true
			}
		}
		return false
	})
	if !ok {
		var tails []string
		for _, p := range r.procs {
			tails = append(tails, fmt.Sprintf("%s:\n%s", p.id, p.stderr()))
		}
		t.Fatalf("%s acquired nothing within %v; stderr:\n%s", id, timeout, strings.Join(tails, "\n"))
	}
	return got
}

// lostBy returns the first hold of process id that ended with the loss of
// its lock (LostAt 0: none did, so far).
func (r *run) lostBy(t *testing.T, id string) Interval {
	t.Helper()
	_, ivs, err := ReadLogs(r.dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, iv := range ivs {
		if iv.ID == id && iv.LostAt != 0 {
			return iv
		}
	}
	return Interval{}
}

// describe says what the run's processes logged so far: their
// acquisitions, completed holds (and losses), and the end of their stderr.
func (r *run) describe(t *testing.T) string {
	t.Helper()
	acqs, ivs, err := ReadLogs(r.dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, a := range acqs {
		fmt.Fprintf(&b, "%s acquired at %s (token %d); ", a.ID, fromNS(a.Start).Format("15:04:05.000"), a.Token)
	}
	for _, iv := range ivs {
		fmt.Fprintf(&b, "%s held from %s to %s", iv.ID, fromNS(iv.Start).Format("15:04:05.000"), fromNS(iv.End).Format("15:04:05.000"))
		if iv.LostAt != 0 {
			fmt.Fprintf(&b, ", lost: %s", iv.LostErr)
		}
		b.WriteString("; ")
	}
	for _, p := range r.procs {
		fmt.Fprintf(&b, "\nstderr of %s:\n%s", p.id, p.stderr())
	}
	return b.String()
}

// analyse merges the run's logs and fails the test on violations.
func (r *run) analyse(t *testing.T, o AnalyseOptions) Analysis {
	t.Helper()
	a, err := Analyse(r.dir, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range a.Violations {
		t.Errorf("violation: %s", v)
	}
	return a
}

// latencies formats durations for the report.
func latencies(ds []time.Duration) string {
	if len(ds) == 0 {
		return "none"
	}
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = d.Round(time.Millisecond).String()
	}
	return strings.Join(parts, " ")
}

// recoverAndStop waits up to d for n acquisitions that began after
// healedAt (locks granted again after a fault), then stops every process
// and returns whether they came and the processes' reports.
func (r *run) recoverAndStop(t *testing.T, healedAt time.Time, d time.Duration, n int) (bool, []Report) {
	t.Helper()
	recovered := testwait.Every(d, readStep, func() bool {
		acqs, _, err := ReadLogs(r.dir)
		if err != nil {
			t.Fatal(err)
		}
		got := 0
		for _, ev := range acqs {
			if ev.Start > ns(healedAt) {
				got++
			}
		}
		return got >= n
	})
	for _, p := range r.procs {
		p.stop()
	}
	return recovered, r.waitAll(t, time.Minute)
}
