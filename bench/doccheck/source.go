package doccheck

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// handMarker ends the part of docs/bench.md that make bench generates
// (cmd/lockbench keeps what follows it when it rewrites the file).
const handMarker = "<!-- measured by hand: lockbench keeps what follows when it rewrites this file -->"

// tableIDs name the tables of the generated part: the start of the
// heading a table follows, its place under that heading (from 0), and the
// name a figure marker uses for it.
var tableIDs = []struct {
	heading string
	n       int
	id      string
}{
	{"Uncontended acquire + release", 0, "uncontended"},
	{"Redis: the fencing token's share", 0, "fenced"},
	{"Claims", 0, "claims"},
	{"Contended throughput and fairness", 0, "contended"},
	{"Hand-off latency", 0, "handoff"},
	{"Backend commands per acquisition", 0, "commands"},
	{"Scale: many locks held", 0, "scale"},
	{"Redlock: ", 0, "redlock"},
	{"Fleet: real processes on one key", 0, "fleet"},
	{"Fleet: many keys", 0, "fleet-keys"},
	{"Latency guard", 0, "guard"},
	{"etcd with authentication", 0, "etcd-auth"},
	{"Redis server cost", 0, "cost-pairs"},
	{"Redis server cost", 1, "cost-hot"},
	{"Redis server cost", 2, "cost-keys"},
	{"Binary size", 0, "size"},
}

// table is one generated table: its header cells and rows, with Markdown
// emphasis and code marks taken off. A row is named by its first keyCols
// cells, joined by ", ": the fewest that tell every row apart.
type table struct {
	id, heading string
	header      []string
	rows        [][]string
	keyCols     int
}

// source is what make bench wrote: the run's date and its tables by id.
type source struct {
	date   string // the run's date, YYYY-MM-DD, from the first paragraph
	tables map[string]*table
	other  []string            // headings of tables without an id
	dups   map[string][]string // columns named twice, by table id
}

// dateRe finds the run's date in the generated header.
var dateRe = regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}\b`)

// parseSource reads the generated part of bench.md.
func parseSource(md string) (*source, error) {
	gen, _, ok := strings.Cut(md, handMarker)
	if !ok {
		return nil, fmt.Errorf("no hand-measured marker %q", handMarker)
	}
	src := &source{tables: map[string]*table{}, dups: map[string][]string{}}
	intro, _, _ := strings.Cut(gen, "\n## ")
	src.date = dateRe.FindString(intro)
	if src.date == "" {
		return nil, fmt.Errorf("the header names no run date (YYYY-MM-DD)")
	}
	var heading string
	under := 0
	lines := strings.Split(gen, "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(l, "#") {
			heading, under = strings.TrimSpace(strings.TrimLeft(l, "#")), 0
			continue
		}
		if !strings.HasPrefix(l, "|") {
			continue
		}
		j := i
		for j < len(lines) && strings.HasPrefix(lines[j], "|") {
			j++
		}
		t := newTable(heading, lines[i:j])
		i = j - 1
		if t.id = tableID(heading, under); t.id == "" {
			src.other = append(src.other, heading)
		} else {
			src.tables[t.id] = t
			for i, h := range t.header {
				if slices.Index(t.header, h) < i {
					src.dups[t.id] = append(src.dups[t.id], h)
				}
			}
		}
		under++
	}
	return src, nil
}

// tableID returns the id of the nth table under heading, or "".
func tableID(heading string, n int) string {
	for _, t := range tableIDs {
		if strings.HasPrefix(heading, t.heading) && t.n == n {
			return t.id
		}
	}
	return ""
}

// newTable parses the lines of a Markdown table (header, separator, rows).
func newTable(heading string, lines []string) *table {
	t := &table{heading: heading, header: cells(lines[0])}
	for _, l := range lines[min(2, len(lines)):] {
		t.rows = append(t.rows, cells(l))
	}
	for t.keyCols = 1; t.keyCols < len(t.header); t.keyCols++ {
		seen := map[string]bool{}
		unique := true
		for _, r := range t.rows {
			k := t.rowKey(r)
			unique = unique && !seen[k]
			seen[k] = true
		}
		if unique {
			break
		}
	}
	return t
}

// cells splits a table line into its cells, without emphasis or code marks.
func cells(line string) []string {
	parts := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
	for i, p := range parts {
		parts[i] = plain(p)
	}
	return parts
}

// plain removes Markdown emphasis and code marks from s and trims it.
func plain(s string) string {
	return strings.TrimSpace(strings.NewReplacer("**", "", "`", "").Replace(s))
}

// rowKey names row r of t.
func (t *table) rowKey(r []string) string {
	return strings.Join(r[:min(t.keyCols, len(r))], ", ")
}

// cell returns the cell of t in the row named row and the column headed
// col, or an error that lists the names t has.
func (t *table) cell(row, col string) (string, error) {
	c := slices.Index(t.header, col)
	if c < 0 {
		return "", fmt.Errorf("table %s has no column %q (columns: %q)", t.id, col, t.header)
	}
	var names []string
	for _, r := range t.rows {
		if k := t.rowKey(r); k == row && c < len(r) {
			return r[c], nil
		} else {
			names = append(names, k)
		}
	}
	return "", fmt.Errorf("table %s has no row %q (rows: %q)", t.id, row, names)
}
