package main

import (
	"errors"
	"io/fs"
	"os"
	"strings"
)

// handMarker starts the part of bench.md measured by hand (focused go test
// -bench runs, notes on the generated tables), which lockbench keeps when
// it rewrites the file.
const handMarker = "<!-- measured by hand: lockbench keeps what follows when it rewrites this file -->"

// withHandWritten returns generated followed by the hand-written part of
// old, from handMarker on; generated alone when old has none.
func withHandWritten(generated, old string) string {
	i := strings.Index(old, handMarker)
	if i < 0 {
		return generated
	}
	return strings.TrimRight(generated, "\n") + "\n\n" + old[i:]
}

// writeBench writes bench.md at path: md, then the hand-written part of
// the file it replaces.
func writeBench(path, md string) error {
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return os.WriteFile(path, []byte(withHandWritten(md, string(old))), 0o644)
}
