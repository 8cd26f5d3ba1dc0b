package testserver

import (
	"fmt"
	"os/exec"
	"syscall"
	"testing"
)

// TestAwaitStopped stops a process with SIGSTOP: awaitStopped returns once
// none of its threads runs, and a running process counts as running.
func TestAwaitStopped(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	dir := fmt.Sprintf("/proc/%d/task", cmd.Process.Pid)
	if n, err := runningThreads(dir); err != nil || n == 0 {
		t.Fatalf("running process: runningThreads = %d, %v; want some", n, err)
	}
	if err := cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	if err := awaitStopped(cmd.Process.Pid); err != nil {
		t.Fatal(err)
	}
	if n, err := runningThreads(dir); err != nil || n != 0 {
		t.Fatalf("after awaitStopped: runningThreads = %d, %v; want 0", n, err)
	}
}
