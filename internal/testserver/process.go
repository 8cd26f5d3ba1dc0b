package testserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

const (
	// startTimeout bounds how long a start or restart waits for readiness.
	startTimeout = 60 * time.Second
	// stopGrace is how long Stop waits after SIGTERM before SIGKILL.
	stopGrace = 5 * time.Second
	// pollInterval is the pause between readiness probes.
	pollInterval = 20 * time.Millisecond
	// logName is the file in the server's directory that receives its output.
	logName = "server.log"
)

// Server is one server process started by this package, listening on a
// fixed loopback port with a fixed data directory for its whole life, across
// restarts. All methods are idempotent and safe for concurrent use; the
// methods that change the process are serialized.
type Server struct {
	name    string                          // program name for messages
	path    string                          // absolute path of the program
	args    []string                        // arguments, the same on every (re)start
	env     []string                        // added to this process's environment
	dir     string                          // working and data directory
	addr    string                          // client address
	ready   func(ctx context.Context) error // nil once the server serves clients
	ownsDir bool                            // Stop removes dir
	cred    *syscall.Credential             // run as this user (nil: ours)
	// tree: the server's children leave its process group; Pause, Resume
	// and Kill signal them too (proctree.go).
	tree       bool
	stopSignal syscall.Signal // ends the server gracefully; zero means SIGTERM

	pid atomic.Int64

	mu      sync.Mutex
	proc    *os.Process   // nil before the first start
	exited  chan struct{} // closed once proc has been reaped
	stopped bool
}

// Addr returns the client address, "127.0.0.1:PORT". It does not change on
// [Server.Restart].
func (s *Server) Addr() string { return s.addr }

// Dir returns the server's directory, which holds its data and its log.
func (s *Server) Dir() string { return s.dir }

// LogPath returns the path of the file that receives the server's output.
func (s *Server) LogPath() string { return filepath.Join(s.dir, logName) }

// PID returns the process id of the process started last (it may have been
// killed since), or 0 after [Server.Stop].
func (s *Server) PID() int { return int(s.pid.Load()) }

// Stop ends the server with SIGTERM (SIGKILL after 5 s), waits for it and
// removes its directory. Later calls do nothing; after Stop the server
// cannot be restarted.
func (s *Server) Stop() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return nil
	}
	s.stopped = true
	s.terminate()
	s.pid.Store(0)
	if s.ownsDir {
		if err := os.RemoveAll(s.dir); err != nil {
			return fmt.Errorf("testserver: stop %s: %w", s.name, err)
		}
	}
	return nil
}

// Kill ends the server with SIGKILL, as in a crash, and waits for it. The
// data directory is kept, so [Server.Restart] brings it back. Killing a
// server that is not running does nothing.
func (s *Server) Kill() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.running() && s.tree:
		s.killTree()
	case s.running():
		s.signalGroup(syscall.SIGKILL)
		<-s.exited
	}
	return nil
}

// Pause freezes the server with SIGSTOP and returns once every thread of
// it has stopped: its sockets stay open but it answers nothing until
// [Server.Resume]. It returns [ErrNotRunning] when the process is not
// running.
func (s *Server) Pause() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.running() {
		return fmt.Errorf("testserver: pause %s: %w", s.name, ErrNotRunning)
	}
	if s.tree {
		return s.pauseTree()
	}
	s.signal(syscall.SIGSTOP)
	return awaitStopped(s.proc.Pid)
}

// Resume continues a paused server with SIGCONT. Resuming a server that is
// not paused, or not running, does nothing.
func (s *Server) Resume() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.running() && s.tree:
		s.resumeTree()
	case s.running():
		s.signal(syscall.SIGCONT)
	}
	return nil
}

// Restart starts the server again on the same port with the same data
// directory and waits until it serves clients: Redis answers PING (a Redis
// Cluster node may still be rejoining), ZooKeeper reports a mode and etcd
// reports healthy. A ZooKeeper or etcd member needs a quorum for that, so
// restoring a lost quorum needs the members restarted concurrently. A
// running server is first stopped with SIGTERM. It returns [ErrNotRunning]
// after [Server.Stop].
func (s *Server) Restart() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return fmt.Errorf("testserver: restart %s: %w", s.name, ErrNotRunning)
	}
	s.terminate()
	var err error
	for range 5 { // the old socket may linger a moment after a kill
		if err = s.spawn(); err != nil {
			return err
		}
		if err = s.awaitReady(s.exited); err == nil || !errors.Is(err, errAddrInUse) {
			break
		}
		s.terminate()
		time.Sleep(200 * time.Millisecond)
	}
	if err != nil {
		s.terminate()
		return fmt.Errorf("testserver: restart %s: %w", s.name, err)
	}
	return nil
}

// start spawns the first process and waits until it is ready; on failure the
// server is stopped (its directory removed when it owns it).
func (s *Server) start() error {
	s.mu.Lock()
	err := s.spawn()
	exited := s.exited
	s.mu.Unlock()
	if err == nil {
		err = s.awaitReady(exited)
	}
	if err != nil {
		_ = s.Stop()
		return err
	}
	return nil
}

// spawn starts a new process. The caller holds s.mu and no process runs.
func (s *Server) spawn() error {
	logFile, err := os.OpenFile(s.LogPath(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("testserver: start %s: %w", s.name, err)
	}
	cmd := exec.Command(s.path, s.args...)
	cmd.Dir = s.dir
	if s.env != nil {
		cmd.Env = append(os.Environ(), s.env...)
	}
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL, Credential: s.cred}
	if err := cmd.Start(); err != nil {
		_ = logFile.Close()
		return fmt.Errorf("testserver: start %s: %w", s.name, err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		_ = logFile.Close()
		close(exited)
	}()
	s.proc = cmd.Process
	s.exited = exited
	s.pid.Store(int64(cmd.Process.Pid))
	return nil
}

// awaitReady polls the readiness probe until it succeeds, the process exits
// or startTimeout passes. It must not need s.mu.
func (s *Server) awaitReady(exited <-chan struct{}) error {
	deadline := time.Now().Add(startTimeout)
	var last error
	for {
		select {
		case <-exited:
			return s.startError("exited during start", nil)
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		last = s.ready(ctx)
		cancel()
		if last == nil {
			if last = s.ownsPort(); last == nil {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return s.startError(fmt.Sprintf("not ready after %v", startTimeout), last)
		}
		time.Sleep(pollInterval)
	}
}

// ownsPort checks that the process started last listens on the server's
// port, so that a probe answered by another process on that port does not
// count as ready. Where that cannot be known (no /proc), it trusts the
// probe.
func (s *Server) ownsPort() error {
	_, p, err := net.SplitHostPort(s.addr)
	if err != nil {
		return err
	}
	port, err := strconv.Atoi(p)
	if err != nil {
		return err
	}
	pid := int(s.pid.Load())
	ok, err := listensOn(pid, port)
	switch {
	case errors.Is(err, errNoProcNet):
		return nil
	case err != nil:
		return err
	case !ok:
		return fmt.Errorf("%s answers, but process %d does not listen on it", s.addr, pid)
	}
	return nil
}

// startError describes a failed start with the last lines of the log; it
// wraps errAddrInUse when the log says a port was taken.
func (s *Server) startError(what string, cause error) error {
	tail := logTail(s.LogPath(), 15)
	msg := fmt.Sprintf("testserver: %s on %s %s", s.name, s.addr, what)
	if cause != nil {
		msg += fmt.Sprintf(" (last probe: %v)", cause)
	}
	msg += "; log " + s.LogPath() + ":\n" + tail
	if strings.Contains(strings.ToLower(tail), "address already in use") {
		return fmt.Errorf("%s: %w", msg, errAddrInUse)
	}
	return errors.New(msg)
}

// running reports whether a process is alive (not yet reaped). The caller
// holds s.mu.
func (s *Server) running() bool {
	if s.proc == nil {
		return false
	}
	select {
	case <-s.exited:
		return false
	default:
		return true
	}
}

// signal sends sig to the process this Server started. os.Process signals
// through a pidfd, so a reaped process is never confused with a newer one.
// The caller holds s.mu.
func (s *Server) signal(sig syscall.Signal) {
	if s.proc != nil {
		_ = s.proc.Signal(sig)
	}
}

// signalGroup sends sig to the process and to its process group (children a
// server forked, such as a Redis replication child). The group is signalled
// only while its leader, our process, is not reaped, so its id cannot have
// been reused. The caller holds s.mu.
func (s *Server) signalGroup(sig syscall.Signal) {
	if !s.running() {
		return
	}
	_ = syscall.Kill(-s.proc.Pid, sig)
	s.signal(sig)
}

// terminate ends a running process: SIGTERM (and SIGCONT, in case it is
// paused), then SIGKILL after stopGrace. The caller holds s.mu.
func (s *Server) terminate() {
	if !s.running() {
		return
	}
	sig := syscall.SIGTERM
	if s.stopSignal != 0 {
		sig = s.stopSignal
	}
	if s.tree {
		s.resumeTree() // in case it is paused
	}
	s.signal(sig)
	s.signal(syscall.SIGCONT)
	select {
	case <-s.exited:
	case <-time.After(stopGrace):
		if s.tree {
			s.killTree()
			return
		}
		s.signalGroup(syscall.SIGKILL)
		<-s.exited
	}
}

// logTail returns the last n lines of the file at path.
func logTail(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	defer f.Close()
	const maxTail = 8 << 10
	if fi, err := f.Stat(); err == nil && fi.Size() > maxTail {
		_, _ = f.Seek(-maxTail, io.SeekEnd)
	}
	b, _ := io.ReadAll(f)
	lines := bytes.Split(bytes.TrimRight(b, "\n"), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}
