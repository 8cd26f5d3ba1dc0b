package testserver

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// stopTimeout bounds how long Pause waits for every thread to stop.
const stopTimeout = 10 * time.Second

// awaitStopped waits until every thread of process pid is stopped, from
// /proc/PID/task/*/stat. kill(SIGSTOP) returns before the process stops:
// one thread takes the signal and only then stops the others, so on a busy
// machine a JVM went on answering for milliseconds after SIGSTOP. Where
// /proc cannot be read it returns at once.
func awaitStopped(pid int) error {
	dir := fmt.Sprintf("/proc/%d/task", pid)
	deadline := time.Now().Add(stopTimeout)
	for {
		running, err := runningThreads(dir)
		if err != nil || running == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("testserver: %d threads of process %d still running %v after SIGSTOP", running, pid, stopTimeout)
		}
		time.Sleep(time.Millisecond)
	}
}

// runningThreads counts the threads under dir (/proc/PID/task) that are
// neither stopped nor dead.
func runningThreads(dir string) (int, error) {
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, task := range tasks {
		b, err := os.ReadFile(filepath.Join(dir, task.Name(), "stat"))
		if err != nil {
			continue // the thread ended
		}
		// pid (comm) state ...: comm may hold spaces and parentheses.
		i := strings.LastIndexByte(string(b), ')')
		if i < 0 || i+2 >= len(b) {
			continue
		}
		switch b[i+2] {
		case 'T', 't', 'Z', 'X':
		default:
			n++
		}
	}
	return n, nil
}
