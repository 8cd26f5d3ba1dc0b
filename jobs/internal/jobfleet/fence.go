package main

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// write presents token to the fence file, which keeps the highest token
// it accepted: it accepts a token no lower than that, under an flock.
func write(path string, token int64) bool {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return false
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return false
	}
	defer syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	b, _ := os.ReadFile(path)
	high, _ := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if token < high {
		return false
	}
	_ = f.Truncate(0)
	_, err = f.WriteAt([]byte(strconv.FormatInt(token, 10)), 0)
	return err == nil
}

// waitNewer waits up to d for the fence to hold a token above token.
func waitNewer(path string, token int64, d time.Duration) {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		b, _ := os.ReadFile(path)
		if high, _ := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); high > token {
			return
		}
	}
}
