package bench

import (
	"fmt"
	"html"
	"math"
	"strings"
	"time"
)

// bar is one bar of a panel.
type bar struct {
	label string
	kind  Kind
	value time.Duration
}

var kindColor = map[Kind]string{KindRaw: "#9e9e9e", KindLock4go: "#1f77b4", KindPeer: "#ff7f0e"}

// SVG renders two panels of horizontal bars on a log scale: uncontended p50
// for every subject, and hand-off p99 with the most waiters for every
// subject that waits.
func (r *Report) SVG() string {
	var left, right []bar
	w := r.maxWaiters()
	for _, row := range r.Rows {
		s := row.Subject
		left = append(left, bar{s.Name, s.Kind, row.Uncontended.Pair.P50})
		if s.Waits {
			right = append(right, bar{s.Name, s.Kind, row.Handoff[w].Handoff.P99})
		}
	}
	const (
		rowH   = 22
		top    = 75
		labelW = 215
		panelW = 300
		gap    = 50
	)
	rows := max(len(left), len(right))
	width := 2*(labelW+panelW) + gap + 60
	height := top + rows*rowH + 70
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", width, height)
	fmt.Fprintf(&b, `<text x="10" y="20" font-size="15" font-weight="bold">lock4go vs raw floors and peers (log scale, shorter is better)</text>`+"\n")
	panel(&b, 10, top, labelW, panelW, rowH, "Uncontended acquire + release, p50", left)
	panel(&b, 10+labelW+panelW+gap, top, labelW, panelW, rowH, fmt.Sprintf("Hand-off with %d waiters, p99", w), right)
	ly := top + rows*rowH + 45
	x := 10
	for _, k := range []Kind{KindRaw, KindLock4go, KindPeer} {
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="12" height="12" fill="%s"/><text x="%d" y="%d">%s</text>`+"\n", x, ly-10, kindColor[k], x+16, ly, k)
		x += 110
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// decade names 10^d microseconds.
func decade(d float64) string {
	switch n := int(d); {
	case n < 3:
		return fmt.Sprintf("%.0f µs", math.Pow(10, d))
	case n < 6:
		return fmt.Sprintf("%.0f ms", math.Pow(10, d-3))
	default:
		return fmt.Sprintf("%.0f s", math.Pow(10, d-6))
	}
}

// panel draws one titled panel of bars at (x, y).
func panel(b *strings.Builder, x, y, labelW, w, rowH int, title string, bars []bar) {
	fmt.Fprintf(b, `<text x="%d" y="%d" font-weight="bold">%s</text>`+"\n", x, y-22, html.EscapeString(title))
	lo, hi := math.Inf(1), 0.0
	for _, br := range bars {
		if v := float64(br.value); v > 0 {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if hi == 0 {
		return
	}
	// Decades of microseconds spanning the values.
	d0 := math.Floor(math.Log10(lo / 1e3))
	if math.Log10(lo/1e3)-d0 < 0.3 {
		d0-- // keep the shortest bar visible
	}
	d1 := math.Ceil(math.Log10(hi / 1e3))
	if d1 <= d0 {
		d1 = d0 + 1
	}
	px := func(v float64) float64 { return float64(w) * (math.Log10(v/1e3) - d0) / (d1 - d0) }
	x0 := x + labelW
	h := len(bars) * rowH
	for d := d0; d <= d1; d++ {
		gx := float64(x0) + px(math.Pow(10, d)*1e3)
		fmt.Fprintf(b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>`+"\n", gx, y-8, gx, y+h)
		fmt.Fprintf(b, `<text x="%.1f" y="%d" text-anchor="middle" fill="#555">%s</text>`+"\n", gx, y+h+15, decade(d))
	}
	for i, br := range bars {
		by := y + i*rowH
		fmt.Fprintf(b, `<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", x0-6, by+rowH/2+4, html.EscapeString(br.label))
		if br.value <= 0 {
			fmt.Fprintf(b, `<text x="%d" y="%d" fill="#999">n/a</text>`+"\n", x0+4, by+rowH/2+4)
			continue
		}
		bw := math.Max(px(float64(br.value)), 1)
		fmt.Fprintf(b, `<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"/>`+"\n", x0, by+3, bw, rowH-6, kindColor[br.kind])
		fmt.Fprintf(b, `<text x="%.1f" y="%d" fill="#222">%s</text>`+"\n", float64(x0)+bw+4, by+rowH/2+4, dur(br.value))
	}
}
