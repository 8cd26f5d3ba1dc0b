package lockdebug

import (
	"regexp"
	"time"
	"unicode/utf8"

	"github.com/lock4go/lock4go"
)

// page is what the handler shows, in the shape of its JSON.
type page struct {
	Time      time.Time      `json:"time"`
	Templates []templateView `json:"templates"`
}

type templateView struct {
	Executors []executorView `json:"executors"`
	Held      []heldView     `json:"held"`
	Queues    []queueView    `json:"queues"`
	Failures  []failureView  `json:"failures"`
}

type executorView struct {
	Name          string     `json:"name"`
	Priority      int        `json:"priority"`
	Primary       bool       `json:"primary"`
	Health        string     `json:"health"`
	LastRoundTrip *time.Time `json:"last_round_trip,omitempty"`
	RoundTrips    int        `json:"round_trips_last_minute"`
	P50MS         float64    `json:"p50_ms"`
	P99MS         float64    `json:"p99_ms"`
	Errors        int        `json:"errors_last_minute"`
	ErrorsTotal   int64      `json:"errors_total"`
	LastError     string     `json:"last_error,omitempty"`
	LastErrorAt   *time.Time `json:"last_error_at,omitempty"`
}

type heldView struct {
	Key        string    `json:"key"`
	Executor   string    `json:"executor"`
	Kind       string    `json:"kind"`
	Token      int64     `json:"token"`
	Owner      string    `json:"owner"` // shortened
	AcquiredAt time.Time `json:"acquired_at"`
	AgeMS      float64   `json:"age_ms"`
	Handles    int       `json:"handles"`
	Renewal    string    `json:"renewal"`
	// LeaseLeftMS is null when the backend keeps the lease alive.
	LeaseLeftMS *float64 `json:"lease_left_ms"`
	Renewals    int      `json:"renewals"`
	// LastRenewalMS is null before the first renewal.
	LastRenewalMS *float64 `json:"last_renewal_ms"`
}

type queueView struct {
	Executor  string `json:"executor"`
	Key       string `json:"key"`
	Waiting   int    `json:"waiting"`
	Acquiring bool   `json:"acquiring"`
}

type failureView struct {
	Time     time.Time `json:"time"`
	Kind     string    `json:"kind"`
	Executor string    `json:"executor"`
	Key      string    `json:"key"`
	Reason   string    `json:"reason"`
}

func newPage(now time.Time, tpls []*lock4go.Template) page {
	p := page{Time: now.UTC()}
	for _, t := range tpls {
		p.Templates = append(p.Templates, newTemplateView(t.Snapshot()))
	}
	return p
}

func newTemplateView(s lock4go.Snapshot) templateView {
	v := templateView{
		Executors: make([]executorView, 0, len(s.Executors)),
		Held:      make([]heldView, 0, len(s.Held)),
		Queues:    make([]queueView, 0, len(s.Queues)),
		Failures:  make([]failureView, 0, len(s.Failures)),
	}
	for _, e := range s.Executors {
		v.Executors = append(v.Executors, executorView{
			Name: e.Name, Priority: e.Priority, Primary: e.Primary, Health: string(e.Health),
			LastRoundTrip: timePtr(e.LastRoundTrip), RoundTrips: e.RoundTrips, P50MS: ms(e.P50), P99MS: ms(e.P99),
			Errors: e.Errors, ErrorsTotal: e.ErrorsTotal, LastError: reason(e.LastError), LastErrorAt: timePtr(e.LastErrorAt),
		})
	}
	for _, h := range s.Held {
		hv := heldView{
			Key: h.Key, Executor: h.Executor, Kind: h.Kind.String(), Token: h.Token, Owner: shortOwner(h.Owner),
			AcquiredAt: h.AcquiredAt.UTC(), AgeMS: ms(s.Time.Sub(h.AcquiredAt)), Handles: h.Handles,
			Renewal: string(h.Renewal), Renewals: h.Renewals,
		}
		if h.Renewal != lock4go.RenewalBackend {
			left := ms(h.LeaseLeft)
			hv.LeaseLeftMS = &left
		}
		if h.Renewals > 0 {
			last := ms(h.LastRenewal)
			hv.LastRenewalMS = &last
		}
		v.Held = append(v.Held, hv)
	}
	for _, q := range s.Queues {
		v.Queues = append(v.Queues, queueView(q))
	}
	for _, f := range s.Failures {
		v.Failures = append(v.Failures, failureView{
			Time: f.Time.UTC(), Kind: string(f.Kind), Executor: f.Executor, Key: f.Key, Reason: reason(f.Err),
		})
	}
	return v
}

// ms returns d in milliseconds, to the microsecond.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := t.UTC()
	return &u
}

// ownerLen is how much of an owner value the page shows: enough to tell
// holders apart and to find them in logs, not the whole value.
const ownerLen = 8

func shortOwner(o string) string {
	if len(o) <= ownerLen {
		return o
	}
	return o[:ownerLen] + "…"
}

// maxReason bounds an error text, in bytes.
const maxReason = 300

var (
	// urlUserinfo matches the user information of a URL ("redis://user:pw@").
	urlUserinfo = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://)[^/@\s]+@`)
	// secretParam matches password-like parameters ("password=…").
	secretParam = regexp.MustCompile(`(?i)\b(password|passwd|pwd|secret)(\s*[=:]\s*)[^\s&,;"')]+`)
)

// reason returns err's text with credentials masked, cut to maxReason.
func reason(err error) string {
	if err == nil {
		return ""
	}
	s := urlUserinfo.ReplaceAllString(err.Error(), "${1}***@")
	s = secretParam.ReplaceAllString(s, "${1}${2}***")
	if len(s) > maxReason {
		cut := maxReason
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}
