package jobs_test

import (
	"bufio"
	"os"
	"time"

	"github.com/lock4go/lock4go/internal/reliability"
)

// pgLogTime is the layout of the times that start the lines of the
// PostgreSQL server's log (log_line_prefix %m; see startPostgres).
const pgLogTime = "2006-01-02 15:04:05.000 MST"

// serverLog returns the lines of b's server log stamped between from and
// to: PostgreSQL's slow statements and lock waits (the other servers' logs
// are not read). A line without a time of its own (a statement's detail)
// goes with the line before it.
func (b *backend) serverLog(from, to time.Time) []string {
	if b.kind != reliability.Postgres || len(b.srvs) == 0 {
		return nil
	}
	f, err := os.Open(b.srvs[0].LogPath())
	if err != nil {
		return []string{"server log: " + err.Error()}
	}
	defer f.Close()
	var out []string
	in := false
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if len(line) >= len(pgLogTime) {
			if at, err := time.Parse(pgLogTime, line[:len(pgLogTime)]); err == nil {
				in = !at.Before(from) && !at.After(to)
			}
		}
		if in {
			out = append(out, line)
		}
	}
	return out
}
