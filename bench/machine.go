package bench

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// ServerSettings describes the servers [Start] runs, as the header of
// bench.md states them: what a reader needs to compare the figures with a
// production server's.
const ServerSettings = "one redis-server without persistence (`--save \"\" --appendonly no`), " +
	"one etcd and one ZooKeeper (standalone, tickTime 500 ms) with their defaults (their logs synced to the VM's disk), " +
	"one PostgreSQL 15 with `fsync=off` and `full_page_writes=off` (commits are written but never flushed to disk: " +
	"the PostgreSQL figures leave out a disk flush per committed statement), " +
	"and one MariaDB 10.11 with `innodb_flush_log_at_trx_commit=2` (commits written to the OS, flushed about once a second; " +
	"the executor told so by `AllowUnsafeDurability`), all on loopback, started by the program"

// Machine is where and when a run took place.
type Machine struct {
	Date   string // the run's start, YYYY-MM-DD (UTC)
	Commit string // HEAD's short hash, "+changes" when the tree differs; "" outside git
	CPU    string // the processor's model name
	CPUs   int
	Load   string // the 1-minute load average at the start
}

// ThisMachine describes this machine now.
func ThisMachine() Machine {
	m := Machine{Date: time.Now().UTC().Format(time.DateOnly), CPUs: runtime.NumCPU(), CPU: cpuModel()}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(b)); len(f) > 0 {
			m.Load = f[0]
		}
	}
	if out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output(); err == nil {
		m.Commit = strings.TrimSpace(string(out))
		if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(st) > 0 {
			m.Commit += "+changes"
		}
	}
	return m
}

// cpuModel returns the model name of /proc/cpuinfo, or "".
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// String is the header's description of m: "2026-11-26, commit 3a6a86c,
// go1.26.8 linux/amd64, 2 CPUs (AMD EPYC), load average 0.08 at the start".
func (m Machine) String() string {
	s := m.Date
	if m.Commit != "" {
		s += ", commit " + m.Commit
	}
	s += fmt.Sprintf(", %s %s/%s, %d CPUs", runtime.Version(), runtime.GOOS, runtime.GOARCH, m.CPUs)
	if m.CPU != "" {
		s += " (" + m.CPU + ")"
	}
	if m.Load != "" {
		s += ", load average " + m.Load + " at the start"
	}
	return s
}
