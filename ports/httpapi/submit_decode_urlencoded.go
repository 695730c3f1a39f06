package httpapi

import (
	"net/url"
	"strings"

	"github.com/formd/formd/domain/submission"
)

// decodeURLEncoded parses a urlencoded body in order.
func decodeURLEncoded(raw string) ([]submission.Field, error) {
	var set fieldSet
	for _, pair := range strings.Split(raw, "&") {
		if pair == "" {
			continue
		}
		k, v, _ := strings.Cut(pair, "=")
		name, err1 := url.QueryUnescape(k)
		value, err2 := url.QueryUnescape(v)
		if err1 != nil || err2 != nil {
			return nil, badRequest("Request body is not valid application/x-www-form-urlencoded data.")
		}
		if err := set.add(name, value); err != nil {
			return nil, err
		}
	}
	return set.result(), nil
}
