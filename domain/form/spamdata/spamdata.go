// Package spamdata is the data the spam rules ship with: the list of
// disposable email address domains (disposable_domains.txt, its source
// named in its header).
package spamdata

import (
	_ "embed"
	"strings"
	"sync"
)

//go:embed disposable_domains.txt
var disposableList string

var disposable = sync.OnceValue(func() map[string]struct{} {
	set := make(map[string]struct{}, 9000)
	for _, line := range strings.Split(disposableList, "\n") {
		line = strings.ToLower(strings.TrimSpace(line))
		if line != "" && !strings.HasPrefix(line, "#") {
			set[line] = struct{}{}
		}
	}
	return set
})

// DisposableDomain is the listed disposable domain that host is or is a
// subdomain of; false when it is none. host is a lower-case domain.
func DisposableDomain(host string) (string, bool) {
	set := disposable()
	for d := host; d != ""; {
		if _, ok := set[d]; ok {
			return d, true
		}
		_, parent, found := strings.Cut(d, ".")
		if !found {
			break
		}
		d = parent
	}
	return "", false
}
