// Package doccheck checks that every Go block of the README and of docs/
// compiles: it extracts each ```go block, turns it into a package (a
// program as it is; declarations or a function body with the imports it
// needs inferred from a fixed table, and the names it uses without
// declaring them taken from a fixed table of givens), builds all of them
// with one go build inside this module, where the peer libraries of
// docs/migrating.md are available, and reports each compiler error at its
// file and line in the Markdown.
//
// A block that is deliberately not Go that compiles says so in its fence
// info, with a reason: ```go fragment: the signature of a method. It is
// skipped, and the test logs the reason.
//
// The test runs in `cd bench && go test -short ./...`, which make test runs.
package doccheck
