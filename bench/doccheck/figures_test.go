package doccheck

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the marked figures of README.md and docs/*.md to docs/bench.md's values (after make bench)")

// TestFigures: every figure of README.md and docs/*.md marked as a make
// bench figure reads what the generated part of docs/bench.md says
// (rounded at most), and every file with such figures names the run's
// date. After make bench, `go test ./doccheck -run TestFigures -update`
// rewrites the figures; read the diff for sentences the new figures make
// untrue.
func TestFigures(t *testing.T) {
	root := repoRoot(t)
	data, err := os.ReadFile(filepath.Join(root, "docs", "bench.md"))
	if err != nil {
		t.Fatal(err)
	}
	src, err := parseSource(string(data))
	if err != nil {
		t.Fatalf("docs/bench.md: %v", err)
	}
	if len(src.other) > 0 {
		t.Errorf("docs/bench.md has generated tables without a name in tableIDs (source.go), under: %q", src.other)
	}
	for id, cols := range src.dups {
		t.Errorf("docs/bench.md: table %s names columns %q twice: a figure cannot name the second", id, cols)
	}
	probs, err := checkFigures(root, docFiles(t, root), src, *update)
	if err != nil {
		t.Fatal(err)
	}
	for file, heading := range benchSections {
		more, err := unmarked(root, file, heading)
		if err != nil {
			t.Fatal(err)
		}
		probs = append(probs, more...)
	}
	for _, p := range probs {
		if *update {
			t.Log(p)
		} else {
			t.Error(p)
		}
	}
}

// benchMD is a generated docs/bench.md in small.
const benchMD = "# lock4go benchmarks\n\nGenerated on 2026-11-26 by make bench.\n\n" +
	"## Uncontended acquire + release\n\n" +
	"| library | backend | p50 | p50 × raw floor | server cmds / sent per pair |\n|---|---|--:|--:|--:|\n" +
	"| raw redis | redis | 98 µs |  | 4.0 / 2.0 |\n" +
	"| **lock4go/redis** | redis | 150 µs | 1.53× | 6.0 / 2.0 |\n\n" +
	"## Fleet: real processes on one key\n\n" +
	"| subject | P | acq/s | max wait |\n|---|--:|--:|--:|\n" +
	"| lock4go/redis | 1 | 4310 | 386.3 ms |\n| lock4go/redis | 4 | 717 | 1.91 s |\n\n" +
	handMarker + "\n\n## Measured by hand\n"

// TestCheckFigures: a figure equal to its source, or rounded from it,
// passes; one that drifted fails at its line with the source's value; a
// marker without a figure or with a wrong name fails; a file without the
// run's date fails; -update rewrites what drifted, as it was written.
func TestCheckFigures(t *testing.T) {
	src, err := parseSource(benchMD)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	doc := "# Doc\n\nMeasured by make bench of 2026-11-26<!-- bench run -->.\n\n" +
		"Redis 1.53×<!-- bench uncontended | lock4go/redis | p50 × raw floor --> the floor, " + // line 5: equal
		"0.15 ms<!-- bench uncontended | lock4go/redis | p50 -->, " + // rounded, in another unit
		"6<!-- bench uncontended | lock4go/redis | server cmds / sent per pair #1 --> commands.\n" +
		"Waits of 0.39 s<!-- bench fleet | lock4go/redis, 1 | max wait -->–1.9 s<!-- bench fleet | lock4go/redis, 4 | max wait -->, " + // line 6
		"4 310<!-- bench fleet | lock4go/redis, 1 | acq/s --> and **720**<!-- bench fleet | lock4go/redis, 4 | acq/s --> acquisitions/s.\n" +
		"```\n1.00×<!-- bench uncontended | raw redis | p50 --> in a code block is not checked\n```\n" +
		"`1.00×<!-- bench uncontended | raw redis | p50 -->` in a code span is not checked either.\n" +
		"No figure<!-- bench uncontended | lock4go/redis | p50 -->; 1.5×<!-- bench uncontended | lock4go/etcd | p50 × raw floor -->; " + // line 11
		"3 ms<!-- bench nope | a | b -->; 2.0<!-- bench uncontended | lock4go/redis | server cmds / sent per pair -->.\n"
	for name, text := range map[string]string{"doc.md": doc, "norun.md": "1.53×<!-- bench uncontended | lock4go/redis | p50 × raw floor -->\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	probs, err := checkFigures(dir, []string{"doc.md", "norun.md"}, src, false)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"doc.md:6: 720 names fleet | lock4go/redis, 4 | acq/s, which docs/bench.md gives as 717",
		`doc.md:11: <!-- bench uncontended | lock4go/redis | p50 --> follows no number`,
		`doc.md:11: 2.0: the cell "6.0 / 2.0" has 2 numbers: name one with #n after the column`,
		`doc.md:11: 3 ms: no table "nope" in docs/bench.md (have uncontended, fleet)`,
		`doc.md:11: 1.5×: table uncontended has no row "lock4go/etcd" (rows: ["raw redis" "lock4go/redis"])`,
		"norun.md: names figures of make bench but not its run: write its date followed by <!-- bench run -->, with the machine and the servers' settings",
	}
	if got := strings.Join(probs, "\n"); got != strings.Join(want, "\n") {
		t.Fatalf("problems:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}

	if _, err := checkFigures(dir, []string{"doc.md"}, src, true); err != nil {
		t.Fatal(err)
	}
	fixed, _ := os.ReadFile(filepath.Join(dir, "doc.md"))
	if !strings.Contains(string(fixed), "and **717**<!-- bench fleet") || strings.Count(string(fixed), "\n") != strings.Count(doc, "\n") {
		t.Fatalf("-update did not rewrite 720 as 717, in place:\n%s", fixed)
	}
}

// TestUnmarked: in a section that quotes make bench, a figure with a unit
// and no marker fails, unless its paragraph or list item says it was
// measured apart; figures in code spans, without a unit, or outside the
// section are not asked for one.
func TestUnmarked(t *testing.T) {
	dir := t.TempDir()
	md := "# R\n\n## Measured\n\n" +
		"- Redis 1.53×<!-- bench uncontended | lock4go/redis | p50 × raw floor --> and 1.9 ms, 6 server commands.\n" + // line 5
		"  more: **2.5 s** and `3 ms` in code\n" + // line 6
		"- Key building, measured apart: 0.4–1.1× (`go test …`)\n\n" +
		"### Detail\n\n7 ms\n\n## Safety\n\n8 ms\n"
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	probs, err := unmarked(dir, "README.md", "## Measured")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`README.md:5: 1.9 ms in "## Measured" follows no marker: name its cell in docs/bench.md, or say it was measured apart and how`,
		`README.md:6: 2.5 s in "## Measured" follows no marker: name its cell in docs/bench.md, or say it was measured apart and how`,
		`README.md:11: 7 ms in "## Measured" follows no marker: name its cell in docs/bench.md, or say it was measured apart and how`,
	}
	if got := strings.Join(probs, "\n"); got != strings.Join(want, "\n") {
		t.Fatalf("problems:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
}
