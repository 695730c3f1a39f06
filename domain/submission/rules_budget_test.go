package submission_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/form/saferegex"
	"github.com/formd/formd/domain/submission"
)

// Rules saved before the budget existed may exceed it: a submission then
// matches only as many of them as the budget pays for, and the rest refuse
// their fields unmatched. (Security review: 100 rules like [a]{0,280}c and
// 32 KiB values cost 1.4 s of CPU per dry run.)
func TestASubmissionMatchesNoMoreThanTheRegexBudget(t *testing.T) {
	const pattern = `[a]{0,280}c`
	_, size, err := saferegex.CompileSized(pattern)
	if err != nil {
		t.Fatal(err)
	}
	var v form.ValidationSettings
	fields := map[string]string{}
	long := strings.Repeat("a", domain.MaxFieldValueBytes)
	for i := range 100 {
		name := "f" + strconv.Itoa(i)
		v.Fields = append(v.Fields, form.FieldRule{Field: name, Regex: pattern})
		fields[name] = long
	}
	errs := submission.CheckFields(v, fields) // bypasses Validate, as rules stored earlier would
	if len(errs) != 100 {
		t.Fatalf("%d errors, want one per field", len(errs))
	}
	matched := 0
	for _, e := range errs {
		switch {
		case strings.Contains(e.Message, "does not match"):
			matched++
		case strings.Contains(e.Message, "too long to check"):
		default:
			t.Fatalf("unexpected error %+v", e)
		}
	}
	if steps := matched * size * len(long); steps > domain.RegexBudget || matched == 0 {
		t.Errorf("matched %d rules (%d steps); want at least one and at most the budget of %d steps", matched, steps, domain.RegexBudget)
	}

	short := map[string]string{"f0": "aac"}
	if errs := submission.CheckFields(v, short); len(errs) != 0 {
		t.Errorf("short values are matched as usual: %+v", errs)
	}
}
