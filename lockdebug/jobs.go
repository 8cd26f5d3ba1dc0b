package lockdebug

import (
	"bytes"
	"encoding/json"
	"html/template"
	"net/http"
	"strconv"
	"time"

	"github.com/lock4go/lock4go/jobs"
)

// JobsHandler returns a handler, to mount beside [Handler] (at
// /debug/jobs, say), that lists the scheduled jobs runners hold in this
// process: running, or kept until their at-least-for end, with each one's
// holder (owner and token) and that end. ?format=json answers JSON. It
// never touches a backend, and is safe for concurrent use.
func JobsHandler(runners ...*jobs.Runner) http.Handler {
	rs := append([]*jobs.Runner(nil), runners...)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		now := time.Now()
		page := jobsPage{Now: now}
		for _, run := range rs {
			for _, j := range run.Held() {
				page.Jobs = append(page.Jobs, jobView{JobInfo: j, HeldFor: heldFor(now, j)})
			}
		}
		var buf bytes.Buffer
		hdr := w.Header()
		hdr.Set("Cache-Control", "no-store")
		hdr.Set("X-Content-Type-Options", "nosniff")
		if r.URL.Query().Get("format") == "json" {
			_ = json.NewEncoder(&buf).Encode(page)
			hdr.Set("Content-Type", "application/json")
		} else {
			_ = jobsTemplate.Execute(&buf, page)
			hdr.Set("Content-Type", "text/html; charset=utf-8")
			hdr.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
		}
		hdr.Set("Content-Length", strconv.Itoa(buf.Len()))
		if r.Method != http.MethodHead {
			_, _ = w.Write(buf.Bytes())
		}
	})
}

// jobsPage is what JobsHandler shows.
type jobsPage struct {
	Now  time.Time `json:"now"`
	Jobs []jobView `json:"jobs"`
}

// jobView is one job held, with how long it stays taken from now.
type jobView struct {
	jobs.JobInfo
	HeldFor string `json:"held_for"` // "running", or the time to the at-least-for end
}

func heldFor(now time.Time, j jobs.JobInfo) string {
	if j.Running {
		return "running"
	}
	return j.HeldUntil.Sub(now).Round(time.Millisecond).String()
}

var jobsTemplate = template.Must(template.New("jobs").Parse(`<!doctype html>
<title>jobs held</title>
<h1>Scheduled jobs held by this process</h1>
<table><tr><th>job</th><th>executor</th><th>owner</th><th>token</th><th>started</th><th>held for</th><th>at-least-for end</th></tr>
{{range .Jobs}}<tr><td>{{.Name}}</td><td>{{.Executor}}</td><td>{{.Owner}}</td><td>{{.Token}}</td><td>{{.Started.Format "15:04:05.000"}}</td><td>{{.HeldFor}}</td><td>{{if not .Running}}{{.HeldUntil.Format "15:04:05.000"}}{{end}}</td></tr>
{{else}}<tr><td colspan="7">none</td></tr>{{end}}</table>
`))
