package submission_test

import (
	"strings"
	"testing"

	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/submission"
)

func TestTheSpamGateAsksTheClassifierOnce(t *testing.T) {
	tagged := ptr(target(func(st *form.Settings) { st.Spam = form.Spam{Mode: form.SpamTag} }))
	r := browser(field("message", "hello"), field("email", "ann@example.org"), field("subject", "Hi"), field("botcheck", ""))
	r.SpamClassifier = true

	d := submission.Decide(submission.Facts{Request: r, Form: tagged})
	q, asks := d.Question()
	if !asks || q.Spam == nil {
		t.Fatalf("a form with a spam mode asks the configured classifier: %+v %v", q, asks)
	}
	if d.Refusal() == nil {
		t.Fatal("an unfinished decision must refuse until the classifier answered")
	}
	check := *q.Spam
	if check.From != "ann@example.org" || check.IP != "203.0.113.7" || check.Subject != "Hi" {
		t.Errorf("check %+v", check)
	}
	for _, f := range check.Fields {
		if f.Name == "botcheck" || f.Name == "subject" {
			t.Errorf("the check carries the forwarded fields only, not %q", f.Name)
		}
	}

	r.Classification = &submission.Classification{Score: 1000, Spam: true, Reasons: []string{"GTUBE"}}
	d = submission.Decide(submission.Facts{Request: r, Form: tagged})
	if _, asks := d.Question(); asks || d.Refusal() != nil {
		t.Fatalf("answered, the decision is final and tag mode accepts: %v", d.Refusal())
	}
	if tag, ok := d.Plan().Spam(); !ok || !strings.Contains(strings.Join(tag.Reasons, " "), "GTUBE") || d.Plan().Subject() != "[SPAM] Hi" {
		t.Fatalf("tagged by the classifier: %+v %q", tag, d.Plan().Subject())
	}

	r.Classification = &submission.Classification{Unavailable: true}
	d = submission.Decide(submission.Facts{Request: r, Form: tagged})
	if _, ok := d.Plan().Spam(); ok || d.Refusal() != nil {
		t.Fatal("an unavailable classifier fails open: accepted, untagged")
	}
}

func TestTheSpamGateAsksNothingWithoutAClassifierOrAMode(t *testing.T) {
	r := browser(field("message", "hello"))
	off := ptr(target())
	tagged := ptr(target(func(st *form.Settings) { st.Spam = form.Spam{Mode: form.SpamTag} }))
	for name, facts := range map[string]submission.Facts{
		"no classifier configured": {Request: r, Form: tagged},
		"the form's mode is off":   {Request: func() submission.Request { c := r; c.SpamClassifier = true; return c }(), Form: off},
	} {
		if q, asks := submission.Decide(facts).Question(); asks {
			t.Errorf("%s: asks %+v", name, q)
		}
	}
}
