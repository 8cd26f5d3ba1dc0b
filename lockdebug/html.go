package lockdebug

import (
	"fmt"
	"html/template"
	"time"
)

// htmlPage is the HTML view: the page and its refresh period in seconds
// (zero for none).
type htmlPage struct {
	page
	Refresh int
}

var pageTemplate = template.Must(template.New("locks").Funcs(template.FuncMap{
	"ms":    fmtMS,
	"msPtr": fmtMSPtr,
	"since": func(now, t time.Time) string { return fmtMS(ms(now.Sub(t))) + " ago" },
	"clock": func(t time.Time) string { return t.Format("15:04:05.000") },
	"inc":   func(i int) int { return i + 1 },
	"deref": func(t *time.Time) time.Time {
		if t == nil {
			return time.Time{}
		}
		return *t
	},
	"waiting": func(qs []queueView) int {
		n := 0
		for _, q := range qs {
			n += q.Waiting
		}
		return n
	},
}).Parse(pageHTML))

// fmtMS formats a duration given in milliseconds for people.
func fmtMS(v float64) string {
	d := time.Duration(v * float64(time.Millisecond))
	switch {
	case d <= 0:
		return "0"
	case d < time.Millisecond:
		return fmt.Sprintf("%dµs", d.Microseconds())
	case d < time.Second:
		return fmt.Sprintf("%.3gms", v)
	case d < time.Minute:
		return fmt.Sprintf("%.3gs", d.Seconds())
	}
	return d.Round(time.Second).String()
}

func fmtMSPtr(v *float64) string {
	if v == nil {
		return "—"
	}
	return fmtMS(*v)
}

const pageHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
{{- if .Refresh}}
<meta http-equiv="refresh" content="{{.Refresh}}">
{{- end}}
<title>/debug/locks · lock4go</title>
<style>
:root { color-scheme: light dark; --fg: #1b1f24; --muted: #5b6470; --line: #d7dce2; --head: #f2f4f7; --ok: #1a7f37; --bad: #cf222e; --unk: #6e7781; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --muted: #9aa5b1; --line: #373e47; --head: #22272e; } }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); margin: 0 auto; padding: 12px 16px 32px; max-width: 1200px; }
h1 { font-size: 20px; margin: 4px 0; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
h2 { font-size: 17px; margin: 24px 0 4px; }
h3 { font-size: 15px; margin: 20px 0 6px; }
.meta, .empty, .sum { color: var(--muted); margin: 2px 0; }
a { color: inherit; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 5px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: var(--head); font-weight: 600; white-space: nowrap; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.key, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 13px; }
.key { overflow-wrap: break-word; }
.reason { overflow-wrap: anywhere; }
.when { white-space: nowrap; }
.tag { font-size: 11px; border: 1px solid var(--line); border-radius: 8px; padding: 0 6px; color: var(--muted); }
.health { font-weight: 600; }
.health.ok { color: var(--ok); } .health.failing { color: var(--bad); } .health.unknown { color: var(--unk); }
.kind-lost, .kind-backend, .kind-renew_failed, .kind-release_failed { color: var(--bad); font-weight: 600; }
@media (max-width: 700px) {
  thead { display: none; }
  table, tbody, tr, td { display: block; width: 100%; box-sizing: border-box; }
  tr { border: 1px solid var(--line); border-radius: 6px; margin: 0 0 10px; padding: 4px 0; }
  td { border: 0; padding: 3px 10px; display: flex; gap: 12px; justify-content: space-between; text-align: right; }
  td.num { text-align: right; }
  td::before { content: attr(data-label); color: var(--muted); text-align: left; flex: none; font: 13px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
  .when { white-space: normal; }
}
</style>
</head>
<body>
<h1>/debug/locks</h1>
<p class="meta">lock4go · this process · {{.Time.Format "2006-01-02 15:04:05.000 UTC"}} ·
<a href="?format=json">JSON</a> ·
{{if .Refresh}}refreshing every {{.Refresh}}s (<a href="?">stop</a>){{else}}<a href="?refresh=5">auto-refresh</a>{{end}}</p>
{{- range $i, $t := .Templates}}
<section id="template-{{$i}}">
{{- if gt (len $.Templates) 1}}
<h2>Template {{inc $i}}</h2>
{{- end}}
<p class="sum" id="summary-{{$i}}">{{len .Held}} held · {{waiting .Queues}} waiting · {{len .Failures}} recent failures</p>

<h3>Executors</h3>
<table id="executors-{{$i}}">
<thead><tr><th>executor</th><th>health</th><th class="num">round trips (1 min)</th><th class="num">p50</th><th class="num">p99</th><th class="num">errors 1 min / total</th><th>last error</th></tr></thead>
<tbody>
{{- range .Executors}}
<tr><td data-label="executor"><span>{{.Name}}{{if .Primary}} <span class="tag">primary</span>{{end}}</span></td><td data-label="health"><span class="health {{.Health}}">{{.Health}}</span></td><td class="num" data-label="round trips (1 min)">{{.RoundTrips}}</td><td class="num" data-label="p50">{{ms .P50MS}}</td><td class="num" data-label="p99">{{ms .P99MS}}</td><td class="num" data-label="errors 1 min / total">{{.Errors}} / {{.ErrorsTotal}}</td><td class="reason" data-label="last error">{{if .LastError}}{{.LastError}} ({{since $.Time (deref .LastErrorAt)}}){{else}}—{{end}}</td></tr>
{{- end}}
</tbody>
</table>

<h3>Locks held</h3>
{{- if .Held}}
<table id="held-{{$i}}">
<thead><tr><th>key</th><th>executor</th><th>kind</th><th class="num">token</th><th>owner</th><th class="num">age</th><th class="num">lease left</th><th>renewal</th><th class="num">renewals</th><th class="num">last renewal</th></tr></thead>
<tbody>
{{- range .Held}}
<tr><td class="key" data-label="key"><span>{{.Key}}{{if gt .Handles 1}} <span class="tag">×{{.Handles}} re-entered</span>{{end}}</span></td><td data-label="executor">{{.Executor}}</td><td data-label="kind">{{.Kind}}</td><td class="num mono" data-label="token">{{.Token}}</td><td class="mono" data-label="owner">{{.Owner}}</td><td class="num" data-label="age">{{ms .AgeMS}}</td><td class="num" data-label="lease left">{{if .LeaseLeftMS}}{{msPtr .LeaseLeftMS}}{{else}}kept by backend{{end}}</td><td data-label="renewal">{{.Renewal}}</td><td class="num" data-label="renewals">{{.Renewals}}</td><td class="num" data-label="last renewal">{{msPtr .LastRenewalMS}}</td></tr>
{{- end}}
</tbody>
</table>
{{- else}}
<p class="empty">No locks held.</p>
{{- end}}

<h3>Waiting in the local queue</h3>
{{- if .Queues}}
<table id="queues-{{$i}}">
<thead><tr><th>key</th><th>executor</th><th class="num">goroutines waiting</th><th>turn</th></tr></thead>
<tbody>
{{- range .Queues}}
<tr><td class="key" data-label="key">{{.Key}}</td><td data-label="executor">{{.Executor}}</td><td class="num" data-label="goroutines waiting">{{.Waiting}}</td><td data-label="turn">{{if .Acquiring}}acquiring from the backend{{else}}held in this process{{end}}</td></tr>
{{- end}}
</tbody>
</table>
{{- else}}
<p class="empty">No goroutine waiting.</p>
{{- end}}

<h3>Recent failures</h3>
{{- if .Failures}}
<table id="failures-{{$i}}">
<thead><tr><th>when</th><th>kind</th><th>key</th><th>executor</th><th>reason</th></tr></thead>
<tbody>
{{- range .Failures}}
<tr><td class="when" data-label="when" title="{{.Time.Format "2006-01-02T15:04:05.000Z07:00"}}">{{clock .Time}} ({{since $.Time .Time}})</td><td class="kind-{{.Kind}}" data-label="kind">{{.Kind}}</td><td class="key" data-label="key">{{.Key}}</td><td data-label="executor">{{.Executor}}</td><td class="reason mono" data-label="reason">{{.Reason}}</td></tr>
{{- end}}
</tbody>
</table>
{{- else}}
<p class="empty">No failures.</p>
{{- end}}
</section>
{{- end}}
</body>
</html>
`
