package doccheck

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// quantity is a number as a document writes it, with its unit.
type quantity struct {
	num      float64
	decimals int    // digits after the decimal point, as written
	group    string // the thousands separator as written ("" for none)
	space    string // between the number and the unit: "" or " "
	unit     string // one of units' keys
}

// units are the units a figure may carry: their dimension and their size
// in the dimension's base (seconds, a ratio, bytes, a count).
var units = map[string]struct {
	dim   string
	scale float64
}{
	"": {"count", 1}, "µs": {"time", 1e-6}, "ms": {"time", 1e-3}, "s": {"time", 1},
	"×": {"ratio", 1}, "x": {"ratio", 1}, "%": {"percent", 1},
	"B": {"bytes", 1}, "KiB": {"bytes", 1 << 10}, "MiB": {"bytes", 1 << 20},
}

// numRe matches a number (thousands may be grouped by a space, a no-break
// or a thin space) and the unit that may follow it.
var numRe = regexp.MustCompile(`(\d{1,3}(?:[ \x{00a0}\x{2009}\x{202f}]\d{3})+|\d+)(?:\.(\d+))?( ?)(µs|ms|s|×|x|%|B|KiB|MiB)?`)

// quantities returns the numbers of s in order, each with its unit.
func quantities(s string) []quantity {
	var out []quantity
	for _, m := range numRe.FindAllStringSubmatchIndex(s, -1) {
		out = append(out, toQuantity(s, m))
	}
	return out
}

// lastQuantity returns the number that ends s, and where it starts.
func lastQuantity(s string) (quantity, int, bool) {
	ms := numRe.FindAllStringSubmatchIndex(s, -1)
	if len(ms) == 0 || ms[len(ms)-1][1] != len(s) {
		return quantity{}, 0, false
	}
	m := ms[len(ms)-1]
	return toQuantity(s, m), m[0], true
}

// toQuantity reads the match m of numRe in s. A unit followed by a letter
// is the start of a word ("3 samples"), not a unit.
func toQuantity(s string, m []int) quantity {
	whole := s[m[2]:m[3]]
	q := quantity{}
	if i := strings.IndexFunc(whole, func(r rune) bool { return !unicode.IsDigit(r) }); i >= 0 {
		r, _ := utf8.DecodeRuneInString(whole[i:])
		q.group = string(r)
	}
	digits := strings.Map(func(r rune) rune {
		if unicode.IsDigit(r) {
			return r
		}
		return -1
	}, whole)
	if m[4] >= 0 {
		digits += "." + s[m[4]:m[5]]
		q.decimals = m[5] - m[4]
	}
	q.num, _ = strconv.ParseFloat(digits, 64)
	if m[8] >= 0 {
		next, _ := utf8.DecodeRuneInString(s[m[9]:])
		if m[9] == len(s) || !unicode.IsLetter(next) {
			q.space, q.unit = s[m[6]:m[7]], s[m[8]:m[9]]
		}
	}
	return q
}

// compatible reports whether a figure in unit a may name a source in unit
// b: the same dimension, or a ratio and a bare number.
func compatible(a, b string) bool {
	da, db := units[a].dim, units[b].dim
	return da == db || (da == "ratio" && db == "count") || (da == "count" && db == "ratio")
}

// as returns src in doc's unit, rounded to doc's decimals: what doc must
// read if it names src.
func (src quantity) as(doc quantity) (float64, error) {
	if !compatible(doc.unit, src.unit) {
		return 0, fmt.Errorf("a figure in %q cannot name one in %q", doc.unit, src.unit)
	}
	v := src.num * units[src.unit].scale / units[doc.unit].scale
	p := math.Pow10(doc.decimals)
	return math.Round(v*p) / p, nil
}

// format writes v as q is written: its decimals, grouping and unit.
func (q quantity) format(v float64) string {
	s := strconv.FormatFloat(v, 'f', q.decimals, 64)
	if q.group != "" {
		whole, frac, _ := strings.Cut(s, ".")
		var b strings.Builder
		for i, r := range whole {
			if i > 0 && (len(whole)-i)%3 == 0 {
				b.WriteString(q.group)
			}
			b.WriteRune(r)
		}
		s = b.String()
		if frac != "" {
			s += "." + frac
		}
	}
	return s + q.space + q.unit
}
