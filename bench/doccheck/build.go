package doccheck

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// problem is a compiler error of a block.
type problem struct {
	b   block
	pos string // file:line:col in the Markdown file, or in generated code
	msg string
}

func (p problem) String() string {
	return fmt.Sprintf("%s: %s (the ```go block at %s:%d)", p.pos, p.msg, p.b.file, p.b.line)
}

// compile writes units into packages under dir, one directory each, builds
// them all with one go build and returns the compiler's errors. dir must be
// inside a module that provides what the blocks import; rel makes the
// Markdown paths in messages relative to the repository.
func compile(ctx context.Context, dir string, units []unit, rel func(abs string) string) ([]problem, error) {
	args := []string{"build"}
	byPkg := map[string]block{}
	for i, u := range units {
		name := fmt.Sprintf("b%03d", i)
		if err := os.Mkdir(filepath.Join(dir, name), 0o755); err != nil {
			return nil, err
		}
		for f, src := range u.files {
			if err := os.WriteFile(filepath.Join(dir, name, f), []byte(src), 0o644); err != nil {
				return nil, err
			}
		}
		args = append(args, "./"+name)
		byPkg[name] = u.b
	}
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	probs := parseBuild(out.String(), dir, byPkg, rel)
	slices.SortStableFunc(probs, func(a, b problem) int {
		return cmp.Or(cmp.Compare(a.b.file, b.b.file), cmp.Compare(a.b.line, b.b.line))
	})
	if err != nil && len(probs) == 0 {
		return nil, fmt.Errorf("go build: %w\n%s", err, out.String())
	}
	return probs, nil
}

var (
	pkgHeader = regexp.MustCompile(`^# \S*/(b\d{3})$`)
	errLine   = regexp.MustCompile(`^(\S+?):(\d+):(\d+): (.*)$`)
)

// parseBuild maps go build's output to problems: each error line belongs
// to the block of the package header above it.
func parseBuild(out, dir string, byPkg map[string]block, rel func(string) string) []problem {
	var probs []problem
	var cur block
	for line := range strings.Lines(out) {
		line = strings.TrimRight(line, "\n")
		if m := pkgHeader.FindStringSubmatch(line); m != nil {
			cur = byPkg[m[1]]
			continue
		}
		m := errLine.FindStringSubmatch(line)
		if m == nil || cur.file == "" {
			continue
		}
		file := m[1]
		if strings.HasSuffix(file, ".md") {
			if !filepath.IsAbs(file) {
				file = filepath.Join(dir, file)
			}
			file = rel(file)
		}
		probs = append(probs, problem{b: cur, pos: file + ":" + m[2] + ":" + m[3], msg: m[4]})
	}
	return probs
}
