package reliability

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// raceExitCode is the exit code a race-enabled binary ends with when it
// reported a data race and would otherwise have exited 0.
const raceExitCode = 66

// upstreamRace is a data race in a dependency that lockcheck's race
// detector reports and this project cannot fix: the two accesses, each
// the top frame of its stack and the file position of its access.
type upstreamRace struct {
	what   string
	frames [2]string
}

// knownUpstreamRaces are excused in lockcheck's race log, and only they:
// a report is one of them when its two accesses are exactly its frames,
// at exactly these lines of exactly this version, so that a new version
// of the dependency or another race in it fails the test again.
var knownUpstreamRaces = []upstreamRace{{
	// go-zookeeper's Conn.lastZxid: a reconnect's sendSetWatches reads it
	// while the new connection's recvLoop stores the zxid of a reply to a
	// request queued while disconnected. Reported upstream in 2017
	// (samuel/go-zookeeper#178, #260), a fix open since 2020
	// (go-zookeeper/zk#35). On 64-bit platforms the read is the older or the
	// newer zxid, and an older one only makes the server replay watch
	// events; docs/zookeeper.md says what it means on 32-bit ones.
	what: "go-zookeeper v1.0.4's race on Conn.lastZxid (go-zookeeper/zk#35)",
	frames: [2]string{
		"github.com/go-zookeeper/zk.(*Conn).recvLoop() go-zookeeper/zk@v1.0.4/conn.go:849",
		"github.com/go-zookeeper/zk.(*Conn).sendSetWatches() go-zookeeper/zk@v1.0.4/conn.go:614",
	},
}}

// raceLogPath is where the race detector of process id writes its
// reports: GORACE's log_path, to which the runtime appends ".<pid>".
func raceLogPath(dir, id string) string {
	return filepath.Join(dir, "race-"+id)
}

// raceEnv returns the GORACE setting that sends a process's race reports
// to path, keeping the options of this test's own GORACE.
func raceEnv(path string) string {
	return "GORACE=" + strings.TrimSpace(os.Getenv("GORACE")+" log_path="+path)
}

// raceReports reads the race reports a process wrote under path.
func raceReports(path string) ([]string, error) {
	files, err := filepath.Glob(path + ".*")
	if err != nil {
		return nil, err
	}
	var reports []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		reports = append(reports, splitRaceReports(string(b))...)
	}
	return reports, nil
}

// splitRaceReports returns each "WARNING: DATA RACE" report of a race
// log, without the separator lines around it.
func splitRaceReports(log string) []string {
	var reports []string
	for _, block := range strings.Split(log, "==================\n") {
		if strings.Contains(block, "WARNING: DATA RACE") {
			reports = append(reports, strings.TrimSpace(block))
		}
	}
	return reports
}

// raceAccesses returns, for each access a report names ("Write at",
// "Previous read at", ...), its top frame: the function and the file
// position of the access, with the file reduced to its module path.
func raceAccesses(report string) []string {
	lines := strings.Split(report, "\n")
	var frames []string
	for i, l := range lines {
		l = strings.ToLower(strings.TrimSpace(l))
		access := strings.Contains(l, "read at 0x") || strings.Contains(l, "write at 0x")
		if !access || i+2 >= len(lines) {
			continue
		}
		fn := strings.TrimSpace(lines[i+1])
		pos := strings.Fields(strings.TrimSpace(lines[i+2]))
		if len(pos) == 0 {
			continue
		}
		file := pos[0]
		if j := strings.Index(file, "/pkg/mod/github.com/"); j >= 0 {
			file = file[j+len("/pkg/mod/github.com/"):]
		}
		frames = append(frames, fn+" "+file)
	}
	return frames
}

// knownRace returns what a report is when it is one of the known
// upstream races, and "" otherwise.
func knownRace(report string) string {
	got := raceAccesses(report)
	if len(got) != 2 {
		return ""
	}
	for _, k := range knownUpstreamRaces {
		if (got[0] == k.frames[0] && got[1] == k.frames[1]) || (got[0] == k.frames[1] && got[1] == k.frames[0]) {
			return k.what
		}
	}
	return ""
}

// raceVerdict sorts a process's race reports: what the known upstream
// ones are, and the others, whole. A process that exited with the race
// detector's exit code and only known reports did nothing wrong of its
// own.
func raceVerdict(path string) (known []string, others []string, err error) {
	reports, err := raceReports(path)
	if err != nil {
		return nil, nil, err
	}
	for _, r := range reports {
		if what := knownRace(r); what != "" {
			known = append(known, what)
		} else {
			others = append(others, r)
		}
	}
	return known, others, nil
}

// exitedWith reports whether err is an exit with the given code.
func exitedWith(err error, code int) bool {
	var ee *exec.ExitError
	return errors.As(err, &ee) && ee.ExitCode() == code
}
