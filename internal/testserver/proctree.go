package testserver

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// A server with tree set forks children that leave its process group
// (PostgreSQL's backends each call setsid): Pause, Resume and Kill signal
// them too, found through /proc by their parent.

// children returns the process ids whose parent is pid, from /proc.
func children(pid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, _ := procState(child); ppid == pid {
			out = append(out, child)
		}
	}
	return out
}

// procState returns the parent and the state letter of process pid, or 0
// and 0 when it is gone.
func procState(pid int) (ppid int, state byte) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0
	}
	// pid (comm) state ppid ...: comm may hold spaces and parentheses.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 || i+2 >= len(b) {
		return 0, 0
	}
	f := strings.Fields(string(b[i+2:]))
	if len(f) < 2 {
		return 0, 0
	}
	ppid, _ = strconv.Atoi(f[1])
	return ppid, f[0][0]
}

// pauseTree stops the process (so that it forks no more) and then its
// children, and waits until all of them are stopped. The caller holds
// s.mu and the process runs.
func (s *Server) pauseTree() error {
	s.signal(syscall.SIGSTOP)
	if err := awaitStopped(s.proc.Pid); err != nil {
		return err
	}
	kids := children(s.proc.Pid)
	for _, c := range kids {
		_ = syscall.Kill(c, syscall.SIGSTOP)
	}
	var errs []error
	for _, c := range kids {
		errs = append(errs, awaitStopped(c))
	}
	return errors.Join(errs...)
}

// resumeTree continues the children, then the process. The caller holds
// s.mu and the process runs.
func (s *Server) resumeTree() {
	for _, c := range children(s.proc.Pid) {
		_ = syscall.Kill(c, syscall.SIGCONT)
	}
	s.signal(syscall.SIGCONT)
}

// killTree kills the process and its children, as a crash of the machine
// would, and waits until the children are gone (or zombies: they hold
// nothing). The children, which serve the clients, are killed first, as
// each is found: the process is stopped at once (no more forks), its
// children are killed while it stops (a stopped parent cannot reap them,
// so their ids cannot be reused meanwhile), and once more after, for any
// it forked before it stopped. The caller holds s.mu.
func (s *Server) killTree() {
	if !s.running() {
		return
	}
	pm := s.proc.Pid
	s.signal(syscall.SIGSTOP)
	kids := killChildren(pm)
	_ = awaitStopped(pm)
	kids = append(kids, killChildren(pm)...)
	s.signalGroup(syscall.SIGKILL)
	<-s.exited
	deadline := time.Now().Add(stopTimeout)
	for _, c := range kids {
		for time.Now().Before(deadline) {
			if _, st := procState(c); st == 0 || st == 'Z' || st == 'X' {
				break
			}
			time.Sleep(time.Millisecond)
		}
	}
}

// killChildren kills, with SIGKILL, every process whose parent is pid,
// and returns their ids.
func killChildren(pid int) []int {
	kids := children(pid)
	for _, c := range kids {
		_ = syscall.Kill(c, syscall.SIGKILL)
	}
	return kids
}
