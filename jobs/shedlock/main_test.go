package shedlock_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/lock4go/lock4go/internal/testserver"
)

// The servers and the javaside binary every test shares.
var (
	redisSrv, pgSrv *testserver.Server
	redisErr, pgErr error
	javaside        string
	javasideErr     error
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "lock4go-javaside-*")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var wg sync.WaitGroup
	wg.Go(func() { redisSrv, redisErr = testserver.StartRedis() })
	wg.Go(func() { pgSrv, pgErr = testserver.StartPostgres() })
	wg.Go(func() {
		javaside = filepath.Join(dir, "javaside")
		out, err := exec.Command("go", "build", "-o", javaside, "./internal/javaside").CombinedOutput()
		if err != nil {
			javasideErr = fmt.Errorf("go build javaside: %v: %s", err, out)
		}
	})
	wg.Wait()
	code := m.Run()
	for _, s := range []*testserver.Server{redisSrv, pgSrv} {
		if s != nil {
			_ = s.Stop()
		}
	}
	_ = os.RemoveAll(dir)
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// side is one javaside process: ShedLock's protocol in a process of its
// own.
type side struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines *bufio.Scanner
}

// startSide runs javaside for job name and returns it with its first
// line: "locked" or "skipped".
func startSide(t *testing.T, backend, addr, name string, atMost, atLeast time.Duration) (*side, string) {
	t.Helper()
	if javasideErr != nil {
		t.Fatal(javasideErr)
	}
	cmd := exec.Command(javaside, "-backend", backend, "-addr", addr, "-name", name,
		"-atmost", atMost.String(), "-atleast", atLeast.String())
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &side{cmd: cmd, stdin: stdin, lines: bufio.NewScanner(stdout)}
	t.Cleanup(func() { _ = stdin.Close(); _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return s, s.line(t)
}

// line returns the next line javaside printed.
func (s *side) line(t *testing.T) string {
	t.Helper()
	if !s.lines.Scan() {
		t.Fatalf("javaside ended: %v", s.lines.Err())
	}
	return strings.TrimSpace(s.lines.Text())
}

// unlock closes javaside's stdin and waits for its unlock.
func (s *side) unlock(t *testing.T) {
	t.Helper()
	_ = s.stdin.Close()
	if got := s.line(t); got != "unlocked" {
		t.Fatalf("javaside said %q, want unlocked", got)
	}
	_ = s.cmd.Wait()
}

// deadline bounds a test's waits.
func deadline(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}
