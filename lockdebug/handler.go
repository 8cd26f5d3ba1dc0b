package lockdebug

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/lock4go/lock4go"
)

// maxRefresh bounds the refresh query parameter, in seconds.
const maxRefresh = 3600

// Handler returns the /debug/locks handler for tpls, shown in the order
// given. It answers GET and HEAD; each request takes one
// [lock4go.Template.Snapshot] of every Template and never touches a
// backend. It panics when given no Template or a nil one (a programming
// error). It is safe for concurrent use.
func Handler(tpls ...*lock4go.Template) http.Handler {
	if len(tpls) == 0 {
		panic("lockdebug: Handler needs at least one Template")
	}
	for i, t := range tpls {
		if t == nil {
			panic(fmt.Sprintf("lockdebug: Template %d is nil", i))
		}
	}
	return &handler{tpls: append([]*lock4go.Template(nil), tpls...)}
}

type handler struct {
	tpls []*lock4go.Template
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	q := r.URL.Query()
	refresh := 0
	if v := q.Get("refresh"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxRefresh {
			http.Error(w, fmt.Sprintf("refresh must be a number of seconds from 1 to %d", maxRefresh), http.StatusBadRequest)
			return
		}
		refresh = n
	}
	format := q.Get("format")
	if format != "" && format != "html" && format != "json" {
		http.Error(w, `format must be "html" or "json"`, http.StatusBadRequest)
		return
	}
	p := newPage(time.Now(), h.tpls)
	var buf bytes.Buffer
	hdr := w.Header()
	hdr.Set("Cache-Control", "no-store")
	hdr.Set("X-Content-Type-Options", "nosniff")
	if format == "json" {
		enc := json.NewEncoder(&buf)
		enc.SetIndent("", "  ")
		if err := enc.Encode(p); err != nil {
			http.Error(w, "encoding failed", http.StatusInternalServerError)
			return
		}
		hdr.Set("Content-Type", "application/json")
	} else {
		if err := pageTemplate.Execute(&buf, htmlPage{page: p, Refresh: refresh}); err != nil {
			http.Error(w, "rendering failed", http.StatusInternalServerError)
			return
		}
		hdr.Set("Content-Type", "text/html; charset=utf-8")
		// Inline CSS only: no scripts, no external assets, no framing.
		hdr.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
		hdr.Set("Referrer-Policy", "no-referrer")
	}
	hdr.Set("Content-Length", strconv.Itoa(buf.Len()))
	if r.Method == http.MethodHead {
		return
	}
	_, _ = w.Write(buf.Bytes())
}
