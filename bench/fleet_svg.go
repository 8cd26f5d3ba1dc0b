package bench

import (
	"fmt"
	"html"
	"math"
	"slices"
	"strings"
)

// fleetColors are the line colours of the fleet plot, by subject order.
var fleetColors = []string{"#1f77b4", "#6baed6", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd"}

// FleetSVG plots, for the Redis subjects of the one-key fleet cells, server
// CPU and server commands per acquisition against the number of processes:
// the cost that should stay flat as a fleet grows.
func FleetSVG(cells []FleetCell) string {
	series := map[string][]FleetCell{}
	var names []string
	var procs []int
	for _, c := range cells {
		if c.Backend != Redis || c.Keys > 1 {
			continue
		}
		if _, ok := series[c.Subject]; !ok {
			names = append(names, c.Subject)
		}
		series[c.Subject] = append(series[c.Subject], c)
		if !slices.Contains(procs, c.Procs) {
			procs = append(procs, c.Procs)
		}
	}
	slices.Sort(procs)
	const (
		panelW, panelH = 380, 240
		left, top, gap = 60, 60, 90
	)
	width, height := 2*(left+panelW)+gap+40, top+panelH+60+20*len(names)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", width, height)
	fmt.Fprintf(&b, `<text x="10" y="20" font-size="15" font-weight="bold">Redis fleets: cost per acquisition as processes grow (64 goroutines on one key; lower and flatter is better)</text>`+"\n")
	if len(procs) == 0 {
		b.WriteString("</svg>\n")
		return b.String()
	}
	metrics := []struct {
		title string
		value func(FleetCell) float64
	}{
		{"server CPU per acquisition, µs", func(c FleetCell) float64 { return c.CPUMicros }},
		{"server commands per acquisition", func(c FleetCell) float64 { return c.ServerCmds }},
	}
	for i, m := range metrics {
		x0 := left + i*(left+panelW+gap)
		linePanel(&b, x0, top, panelW, panelH, m.title, procs, names, series, m.value)
	}
	for i, n := range names {
		y := top + panelH + 50 + 20*i
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="14" height="4" fill="%s"/><text x="%d" y="%d">%s</text>`+"\n",
			left, y-4, fleetColors[i%len(fleetColors)], left+20, y+1, html.EscapeString(n))
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// linePanel draws one panel: x the process counts (evenly spaced), y the
// metric from 0 to its maximum, a line per subject.
func linePanel(b *strings.Builder, x0, y0, w, h int, title string, procs []int, names []string, series map[string][]FleetCell, value func(FleetCell) float64) {
	fmt.Fprintf(b, `<text x="%d" y="%d" font-weight="bold">%s</text>`+"\n", x0, y0-15, html.EscapeString(title))
	hi := 0.0
	for _, n := range names {
		for _, c := range series[n] {
			hi = math.Max(hi, value(c))
		}
	}
	if hi == 0 {
		return
	}
	step := math.Pow(10, math.Floor(math.Log10(hi)))
	top := math.Ceil(hi/step) * step
	px := func(p int) float64 {
		i := slices.Index(procs, p)
		if len(procs) == 1 {
			return float64(x0) + float64(w)/2
		}
		return float64(x0) + float64(w)*float64(i)/float64(len(procs)-1)
	}
	py := func(v float64) float64 { return float64(y0+h) - float64(h)*v/top }
	for v := 0.0; v <= top+step/2; v += step {
		fmt.Fprintf(b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/><text x="%d" y="%.1f" text-anchor="end" fill="#555">%g</text>`+"\n",
			x0, py(v), x0+w, py(v), x0-6, py(v)+4, v)
	}
	for _, p := range procs {
		fmt.Fprintf(b, `<text x="%.1f" y="%d" text-anchor="middle" fill="#555">P = %d</text>`+"\n", px(p), y0+h+18, p)
	}
	for i, n := range names {
		var pts []string
		for _, c := range series[n] {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(c.Procs), py(value(c))))
		}
		color := fleetColors[i%len(fleetColors)]
		fmt.Fprintf(b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"/>`+"\n", strings.Join(pts, " "), color)
		for _, pt := range pts {
			xy := strings.Split(pt, ",")
			fmt.Fprintf(b, `<circle cx="%s" cy="%s" r="3" fill="%s"/>`+"\n", xy[0], xy[1], color)
		}
	}
}
