package form_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/formd/formd/domain/domaintest"
	"github.com/formd/formd/domain/form"
)

// Security review: 100 rules like [a]{0,280}c cost 1.4 s of CPU per
// submission with 32 KiB values. The rules of a form must fit the matching
// budget together, judged at save on the longest values.
func TestRegexRulesMustFitTheMatchingBudgetTogether(t *testing.T) {
	rules := func(n int, pattern string) form.ValidationSettings {
		var v form.ValidationSettings
		for i := range n {
			v.Fields = append(v.Fields, form.FieldRule{Field: "f" + strconv.Itoa(i), Regex: pattern})
		}
		return v
	}
	if err := rules(3, `[a]{0,280}c`).Validate(); err != nil {
		t.Errorf("three large rules fit the budget: %v", err)
	}
	err := rules(4, `[a]{0,280}c`).Validate()
	if field := domaintest.InvalidField(t, err); field != "validation.fields[3].regex" {
		t.Errorf("the refusal names %q, want the rule that breaks the budget", field)
	}
	if !strings.Contains(err.Error(), "too costly") {
		t.Errorf("a fourth large rule = %v, want the budget refusal", err)
	}
	if err := rules(100, `^[0-9]{5}$`).Validate(); err != nil {
		t.Errorf("a hundred small rules fit the budget: %v", err)
	}
	if err := rules(100, `[a]{0,280}c`).Validate(); err == nil {
		t.Errorf("the review's hundred large rules were accepted")
	}
}
