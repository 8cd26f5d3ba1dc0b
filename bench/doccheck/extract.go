package doccheck

import (
	"bufio"
	"bytes"
	"strings"
)

// block is one fenced ```go block of a Markdown file.
type block struct {
	file string // the Markdown file, as given to goBlocks
	line int    // the line of the block's first code line (1-based)
	info string // the fence's info string: "go", "go fragment: why"
	code string
}

// fragment returns why b is not checked, from its fence info ("go
// fragment: why"), and whether it is a fragment.
func (b block) fragment() (string, bool) {
	f := strings.Fields(b.info)
	if len(f) < 2 || !strings.HasPrefix(f[1], "fragment") {
		return "", false
	}
	why := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(b.info[len(f[0]):]), "fragment"))
	why = strings.TrimSpace(strings.TrimPrefix(why, ":"))
	if why == "" {
		why = "no reason given"
	}
	return why, true
}

// goBlocks returns the fenced blocks of src whose info string starts with
// the word "go". Fences are ``` or ~~~, possibly indented (inside a list
// item): the fence's indentation is removed from the block's lines.
func goBlocks(file string, src []byte) []block {
	var out []block
	var cur *block
	var fence, indent string
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimLeft(line, " ")
		if cur == nil {
			f, info, ok := openFence(trimmed)
			if !ok {
				continue
			}
			fence, indent = f, line[:len(line)-len(trimmed)]
			cur = &block{file: file, line: n + 1, info: info}
			continue
		}
		if strings.HasPrefix(trimmed, fence) && strings.TrimSpace(trimmed[len(fence):]) == "" {
			if w := strings.Fields(cur.info); len(w) > 0 && w[0] == "go" {
				out = append(out, *cur)
			}
			cur = nil
			continue
		}
		cur.code += strings.TrimPrefix(line, indent) + "\n"
	}
	return out
}

// openFence reports whether line opens a fenced block, and its fence and
// info string.
func openFence(line string) (fence, info string, ok bool) {
	for _, c := range []string{"```", "~~~"} {
		if strings.HasPrefix(line, c) {
			n := len(line) - len(strings.TrimLeft(line, c[:1]))
			return line[:n], strings.TrimSpace(line[n:]), true
		}
	}
	return "", "", false
}
