package doccheck

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// benchSections are the sections that quote make bench and nothing else:
// every figure with a unit in them must carry its marker, except in a list
// item or paragraph that says it was "measured apart" (with its command).
var benchSections = map[string]string{
	"README.md":     "## Measured",
	"docs/bench.md": "### Summary of a `make bench` run",
}

// benchUnits are the units of the figures make bench reports.
var benchUnits = map[string]bool{"µs": true, "ms": true, "s": true, "×": true, "MiB": true}

// unmarked returns the figures of file's bench section that follow no
// marker.
func unmarked(root, file, heading string) ([]string, error) {
	data, err := os.ReadFile(filepath.Join(root, file))
	if err != nil {
		return nil, err
	}
	var probs []string
	in, exempt := false, false
	hashes := func(s string) int { return len(s) - len(strings.TrimLeft(s, "#")) }
	for _, pl := range proseLines(string(data)) {
		t := pl.text
		switch {
		case strings.TrimSpace(t) == heading:
			in = true
			continue
		case strings.HasPrefix(t, "#") && hashes(t) <= hashes(heading):
			in = false
		}
		if !in {
			continue
		}
		if strings.TrimSpace(t) == "" || strings.HasPrefix(strings.TrimSpace(t), "- ") || strings.HasPrefix(t, "|") {
			exempt = false // a new paragraph, list item or table row
		}
		exempt = exempt || strings.Contains(t, "measured apart")
		if exempt {
			continue
		}
		bare := markerRe.ReplaceAllString(codeSpanRe.ReplaceAllString(t, ""), "\x00")
		for _, m := range numRe.FindAllStringSubmatchIndex(bare, -1) {
			q := toQuantity(bare, m)
			if !benchUnits[q.unit] || strings.HasPrefix(strings.TrimLeft(bare[m[1]:], "*`"), "\x00") {
				continue
			}
			probs = append(probs, fmt.Sprintf("%s:%d: %s in %q follows no marker: name its cell in docs/bench.md, or say it was measured apart and how",
				file, pl.n, q.format(q.num), heading))
		}
	}
	return probs, nil
}
