package doccheck

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// A figure in the README or docs/ that make bench measures is followed by
// a marker naming its source, a cell of a generated table of
// docs/bench.md:
//
//	PostgreSQL 1.07×<!-- bench uncontended | lock4go/postgres | p50 × raw floor -->
//
// The table is named as in tableIDs, the row by its first cells (as many,
// joined by ", ", as tell the rows apart), the column by its header; a
// cell with several numbers takes "#n" after the column ("server cmds /
// sent per pair #1"). The figure may round the source (1.94 ms may be
// written 1.9 ms, 386.3 ms 0.39 s), never differ from it. A file with such
// markers names the run once, its date followed by <!-- bench run -->,
// next to the machine and the servers' settings.

// markerRe matches a figure marker and its reference.
var markerRe = regexp.MustCompile(`<!--\s*bench\s+(.*?)\s*-->`)

// figure is one marked figure of a document.
type figure struct {
	file string
	line int
	ref  string // the marker's reference: "run", or "table | row | column"
	// start and end delimit the figure's text in its line; text is it.
	start, end int
	text       string
}

// figures returns the marked figures of src (outside code blocks), and
// problems with markers that follow no figure.
func figures(file string, src string) ([]figure, []lineProblem) {
	var out []figure
	var probs []lineProblem
	for _, pl := range proseLines(src) {
		code := codeSpanRe.FindAllStringIndex(pl.text, -1)
		for _, m := range markerRe.FindAllStringSubmatchIndex(pl.text, -1) {
			if slices.ContainsFunc(code, func(c []int) bool { return c[0] <= m[0] && m[0] < c[1] }) {
				continue // shown in code, not a marker
			}
			before := strings.TrimRight(pl.text[:m[0]], "*`")
			f := figure{file: file, line: pl.n, ref: pl.text[m[2]:m[3]], end: len(before)}
			const dateLen = len("YYYY-MM-DD")
			if f.ref == "run" {
				if len(before) < dateLen || !dateRe.MatchString(before[len(before)-dateLen:]) {
					probs = append(probs, lineProblem{pl.n, fmt.Sprintf("%s:%d: <!-- bench run --> follows no date", file, pl.n)})
					continue
				}
				f.start = f.end - dateLen
			} else if _, at, ok := lastQuantity(before); ok {
				f.start = at
			} else {
				probs = append(probs, lineProblem{pl.n, fmt.Sprintf("%s:%d: <!-- bench %s --> follows no number", file, pl.n, f.ref)})
				continue
			}
			f.text = before[f.start:f.end]
			out = append(out, f)
		}
	}
	return out, probs
}

// want returns what f must read to name its source in src.
func (f figure) want(src *source) (string, error) {
	if f.ref == "run" {
		return src.date, nil
	}
	parts := strings.Split(f.ref, "|")
	if len(parts) != 3 {
		return "", fmt.Errorf("marker %q: want <!-- bench TABLE | ROW | COLUMN -->", f.ref)
	}
	id, row, col := strings.TrimSpace(parts[0]), strings.TrimSpace(parts[1]), strings.TrimSpace(parts[2])
	t, ok := src.tables[id]
	if !ok {
		return "", fmt.Errorf("no table %q in docs/bench.md (have %s)", id, tableNames(src))
	}
	nth := 0
	if c, n, ok := strings.Cut(col, "#"); ok {
		col = strings.TrimSpace(c)
		var err error
		if nth, err = strconv.Atoi(strings.TrimSpace(n)); err != nil || nth < 1 {
			return "", fmt.Errorf("marker %q: #%s is not a number's place (#1, #2, …)", f.ref, n)
		}
	}
	cell, err := t.cell(row, col)
	if err != nil {
		return "", err
	}
	qs := quantities(cell)
	switch {
	case nth == 0 && len(qs) != 1:
		return "", fmt.Errorf("the cell %q has %d numbers: name one with #n after the column", cell, len(qs))
	case nth > len(qs):
		return "", fmt.Errorf("the cell %q has %d numbers, not %d", cell, len(qs), nth)
	}
	srcQ := qs[max(nth, 1)-1]
	doc, _, _ := lastQuantity(f.text)
	v, err := srcQ.as(doc)
	if err != nil {
		return "", fmt.Errorf("%w (the cell %q)", err, cell)
	}
	return doc.format(v), nil
}

// tableNames lists the table ids of src.
func tableNames(src *source) string {
	var names []string
	for _, t := range tableIDs {
		if _, ok := src.tables[t.id]; ok {
			names = append(names, t.id)
		}
	}
	return strings.Join(names, ", ")
}

// lineProblem is a problem at a line of a file.
type lineProblem struct {
	line int
	msg  string
}

// proseLine is a line of a Markdown file outside fenced code blocks.
type proseLine struct {
	n    int // 1-based
	text string
}

// proseLines returns the lines of src that are not inside fenced code
// blocks (``` or ~~~, possibly indented).
func proseLines(src string) []proseLine {
	var out []proseLine
	fence := ""
	for i, l := range strings.Split(src, "\n") {
		t := strings.TrimLeft(l, " ")
		if fence != "" {
			if strings.HasPrefix(t, fence) && strings.TrimSpace(t[len(fence):]) == "" {
				fence = ""
			}
			continue
		}
		if f, _, ok := openFence(t); ok {
			fence = f
			continue
		}
		out = append(out, proseLine{n: i + 1, text: l})
	}
	return out
}
