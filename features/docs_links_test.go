package features_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// The documentation is a set of pages that link to each other: a renamed
// page or heading must not leave a reader at a dead link. No network: only
// links inside the repository are checked.
var _ = Describe("Documentation", func() {
	pages := func() []string {
		GinkgoHelper()
		docs, err := filepath.Glob("../docs/*.md")
		Expect(err).NotTo(HaveOccurred())
		return append([]string{"../README.md", "../SECURITY.md", "../bench/README.md"}, docs...)
	}

	It("has no relative link or anchor that leads nowhere", func() {
		var broken []string
		for _, page := range pages() {
			text, err := os.ReadFile(page)
			if os.IsNotExist(err) {
				continue
			}
			Expect(err).NotTo(HaveOccurred())
			for _, target := range relativeLinks(string(text)) {
				if problem := checkLink(page, target); problem != "" {
					broken = append(broken, strings.TrimPrefix(page, "../")+": "+target+": "+problem)
				}
			}
		}
		Expect(broken).To(BeEmpty())
	})

	It("links every page of docs/ from the README", func() {
		readme, err := os.ReadFile("../README.md")
		Expect(err).NotTo(HaveOccurred())
		linked := map[string]bool{}
		for _, target := range relativeLinks(string(readme)) {
			path, _, _ := strings.Cut(target, "#")
			linked[filepath.Clean(path)] = true
		}
		docs, err := filepath.Glob("../docs/*.md")
		Expect(err).NotTo(HaveOccurred())
		Expect(docs).NotTo(BeEmpty())
		for _, page := range docs {
			Expect(linked).To(HaveKey(filepath.Join("docs", filepath.Base(page))), "README.md links to %s", page)
		}
	})
})

var (
	markdownLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	htmlSource   = regexp.MustCompile(`(?:src|href)="([^"]+)"`)
	fencedCode   = regexp.MustCompile("(?s)```.*?```")
	inlineCode   = regexp.MustCompile("`[^`\n]*`")
	heading      = regexp.MustCompile(`(?m)^#{1,6} +(.+?) *$`)
)

// relativeLinks lists the link targets of a Markdown page that point inside
// the repository: not web addresses, and not what code blocks show.
func relativeLinks(text string) []string {
	text = inlineCode.ReplaceAllString(fencedCode.ReplaceAllString(text, ""), "")
	var out []string
	for _, re := range []*regexp.Regexp{markdownLink, htmlSource} {
		for _, m := range re.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			out = append(out, target)
		}
	}
	return out
}

// checkLink says why target, a link on page, leads nowhere, or "".
func checkLink(page, target string) string {
	path, anchor, _ := strings.Cut(target, "#")
	file := page
	if path != "" {
		file = filepath.Join(filepath.Dir(page), path)
		if _, err := os.Stat(file); err != nil {
			return "no such file"
		}
	}
	if anchor == "" {
		return ""
	}
	text, err := os.ReadFile(file)
	if err != nil || !strings.HasSuffix(file, ".md") {
		return "an anchor on what is not a Markdown page"
	}
	for _, m := range heading.FindAllStringSubmatch(fencedCode.ReplaceAllString(string(text), ""), -1) {
		if headingAnchor(m[1]) == anchor {
			return ""
		}
	}
	return "no heading with this anchor"
}

// headingAnchor is the anchor a Markdown renderer gives a heading (GitHub's
// rule): lower case, punctuation dropped, spaces as hyphens.
func headingAnchor(title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(title) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteRune('-')
		}
	}
	return b.String()
}
