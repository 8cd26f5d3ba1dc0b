package doccheck

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// checkFigures checks the marked figures of files (relative to root)
// against src and returns the problems. With fix, it rewrites each
// figure that differs from its source to the source's value, written as
// the figure was (unit, decimals), and returns what it rewrote instead.
func checkFigures(root string, files []string, src *source, fix bool) ([]string, error) {
	var probs []string
	for _, file := range files {
		path := filepath.Join(root, file)
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		figs, bad := figures(file, string(data))
		lines := strings.Split(string(data), "\n")
		named := false
		// Right to left, so that a rewrite keeps the next one's offsets.
		slices.SortStableFunc(figs, func(a, b figure) int { return cmp.Or(a.line-b.line, b.start-a.start) })
		for _, f := range figs {
			named = named || f.ref == "run"
			want, err := f.want(src)
			switch {
			case err != nil:
				bad = append(bad, lineProblem{f.line, fmt.Sprintf("%s:%d: %s: %v", file, f.line, f.text, err)})
			case want != f.text && fix:
				l := lines[f.line-1]
				lines[f.line-1] = l[:f.start] + want + l[f.end:]
				bad = append(bad, lineProblem{f.line, fmt.Sprintf("%s:%d: %s → %s (%s)", file, f.line, f.text, want, f.ref)})
			case want != f.text:
				bad = append(bad, lineProblem{f.line, fmt.Sprintf("%s:%d: %s names %s, which docs/bench.md gives as %s", file, f.line, f.text, f.ref, want)})
			}
		}
		slices.SortStableFunc(bad, func(a, b lineProblem) int { return a.line - b.line })
		for _, p := range bad {
			probs = append(probs, p.msg)
		}
		if len(figs) > 0 && !named {
			probs = append(probs, fmt.Sprintf("%s: names figures of make bench but not its run: write its date followed by <!-- bench run -->, with the machine and the servers' settings", file))
		}
		if out := strings.Join(lines, "\n"); fix && out != string(data) {
			if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
				return nil, err
			}
		}
	}
	return probs, nil
}
