package portkit

import (
	"strings"

	"github.com/google/uuid"
)

// ID reads an id as formd writes them: a UUID in its canonical
// 36-character form, lower-cased (ids are case-insensitive). The other forms
// uuid.Validate takes (a urn:uuid: prefix, braces, no hyphens) are not ids,
// and PostgreSQL refuses some of them, so the ports treat them as no id.
func ID(s string) (string, bool) {
	if len(s) != 36 || uuid.Validate(s) != nil {
		return "", false
	}
	return strings.ToLower(s), true
}
