package doccheck

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// linkRe matches an inline Markdown link or image: [text](target "title").
var linkRe = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)

// codeSpanRe matches an inline code span, whose brackets are not links.
var codeSpanRe = regexp.MustCompile("`+[^`]*`+")

var (
	schemeRe = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)  // https:, mailto:
	anchorRe = regexp.MustCompile(`<a\s+(?:id|name)="([^"]+)"`) // an HTML anchor
	inlineRe = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)    // a link inside a heading
)

// checkLinks returns the relative links of files (relative to root) whose
// file does not exist, or whose #anchor names no heading of a Markdown
// file. Links with a scheme (https:, mailto:) are not followed.
func checkLinks(root string, files []string) ([]string, error) {
	var probs []string
	anchors := map[string]map[string]bool{} // by absolute path
	for _, file := range files {
		data, err := os.ReadFile(filepath.Join(root, file))
		if err != nil {
			return nil, err
		}
		for _, pl := range proseLines(string(data)) {
			text := codeSpanRe.ReplaceAllString(pl.text, "")
			for _, m := range linkRe.FindAllStringSubmatch(text, -1) {
				if p := checkLink(root, file, m[1], anchors); p != "" {
					probs = append(probs, fmt.Sprintf("%s:%d: %s: %s", file, pl.n, m[1], p))
				}
			}
		}
	}
	return probs, nil
}

// checkLink checks one target of a link in file and says what is wrong
// with it, or "". anchors caches the anchors of the Markdown files read.
func checkLink(root, file, target string, anchors map[string]map[string]bool) string {
	if schemeRe.MatchString(target) {
		return ""
	}
	path, anchor, _ := strings.Cut(target, "#")
	abs := filepath.Join(root, file)
	if path != "" {
		abs = filepath.Join(filepath.Dir(abs), filepath.FromSlash(path))
	}
	if _, err := os.Stat(abs); err != nil {
		return "no such file or directory"
	}
	if anchor == "" || !strings.HasSuffix(abs, ".md") {
		return ""
	}
	if anchors[abs] == nil {
		data, err := os.ReadFile(abs)
		if err != nil {
			return err.Error()
		}
		anchors[abs] = headingAnchors(string(data))
	}
	if !anchors[abs][anchor] {
		return "no heading has the anchor #" + anchor
	}
	return ""
}

// headingAnchors returns the anchors GitHub gives the headings of a
// Markdown file (a repeated one gets -1, -2, …), and those of <a id> and
// <a name> tags.
func headingAnchors(src string) map[string]bool {
	out := map[string]bool{}
	count := map[string]int{}
	for _, pl := range proseLines(src) {
		for _, m := range anchorRe.FindAllStringSubmatch(pl.text, -1) {
			out[m[1]] = true
		}
		t := strings.TrimLeft(pl.text, " ")
		if !strings.HasPrefix(t, "#") {
			continue
		}
		h := strings.TrimLeft(t, "#")
		if h != "" && h[0] != ' ' {
			continue // #hashtag, not a heading
		}
		a := slug(h)
		if n := count[a]; n > 0 {
			out[a+"-"+strconv.Itoa(n)] = true
		} else {
			out[a] = true
		}
		count[a]++
	}
	return out
}

// slug is GitHub's anchor of a heading's text: the text as rendered
// (links by their text, no emphasis or code marks), lower case, without
// punctuation but hyphens and underscores, spaces as hyphens.
func slug(heading string) string {
	h := inlineRe.ReplaceAllString(strings.TrimSpace(heading), "$1")
	h = strings.NewReplacer("`", "", "*", "").Replace(h)
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
