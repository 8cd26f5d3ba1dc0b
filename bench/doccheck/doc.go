// Package doccheck checks that README.md and docs/*.md say what is true.
//
// Code: every Go block compiles. The test extracts each ```go block, turns
// it into a package (a program as it is; declarations or a function body
// with the imports it needs inferred from a fixed table, and the names it
// uses without declaring them taken from a fixed table of givens), builds
// all of them with one go build inside this module, where the peer
// libraries of docs/migrating.md are available, and reports each compiler
// error at its file and line in the Markdown. A block that is deliberately
// not Go that compiles says so in its fence info, with a reason: ```go
// fragment: the signature of a method. It is skipped, and the test logs
// the reason.
//
// Figures: a figure that make bench measures is followed by a marker that
// names its cell in the generated part of docs/bench.md,
//
//	PostgreSQL 1.07×<!-- bench uncontended | lock4go/postgres | p50 × raw floor -->
//
// and must read what the cell says, rounded at most (figures.go tells the
// rules); a file with such figures names the run's date, followed by
// <!-- bench run -->. After make bench,
//
//	go test ./doccheck -run TestFigures -update
//
// rewrites the figures that changed; the diff shows which sentences to
// reread. In the sections that quote make bench and nothing else (the
// README's "Measured", bench.md's summary: benchSections), a figure
// without a marker fails, unless its paragraph says it was measured apart.
// Nothing here runs a benchmark.
//
// Links: every relative link names a file or directory of the repository,
// and its #anchor a heading of that file (GitHub's anchors).
//
// Words: every word used more than 20 times in the identifiers of the
// library code has an entry in the glossary of docs/design.md, unless it
// is a general word (words.go lists them).
//
// The tests run in `cd bench && go test -short ./...`, which make test runs.
package doccheck
