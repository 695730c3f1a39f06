package application

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/submission"
)

// fakeClassifier answers every Classify with verdict, or err.
type fakeClassifier struct {
	verdict SpamVerdict
	err     error
	asked   []SpamMessage
}

func (c *fakeClassifier) Classify(_ context.Context, m SpamMessage) (SpamVerdict, error) {
	c.asked = append(c.asked, m)
	return c.verdict, c.err
}

func (c *fakeClassifier) Learn(context.Context, SpamMessage, bool) error { return nil }

// countedSpamChecks records every outcome.
type countedSpamChecks struct{ outcomes []SpamCheckOutcome }

func (c *countedSpamChecks) SpamChecked(o SpamCheckOutcome) { c.outcomes = append(c.outcomes, o) }

// noSpamChecks are spam checks without a classifier: the gate judges by
// rules alone.
// nopSpamCounter counts nothing.
type nopSpamCounter struct{}

func (nopSpamCounter) SpamChecked(SpamCheckOutcome) {}

func noSpamChecks() *SpamChecks { return NewSpamChecks(nil, nopSpamCounter{}, quietLog()) }

func spamForm(mode form.SpamMode) FormRecord {
	f := liveForm(1)
	f.Settings.Spam = form.Spam{Mode: mode}
	return f
}

func classifiedSubmitHandler(f FormRecord, store *fakeStore, classifier SpamClassifier, counter SpamCheckCounter) SubmitCommand {
	return NewSubmitHandler(&fakeForms{cached: f, fresh: f}, store, noEntitlements{}, freePlan{}, plainSealer{}, lenHasher{}, &seqIDs{},
		fixedClock{}, noFloods{}, testQuotas, NopMetrics{}, noCaptchas(), NewSpamChecks(classifier, counter, quietLog()), noUploads(),
		newMemoryTestInbox(), noHandOff(), uncounted{}, nil)
}

var gtube = SpamVerdict{Score: 1000, RequiredScore: 15, Action: SpamActionReject, Spam: true, Symbols: []SpamSymbol{{Name: "GTUBE", Score: 0}}}

func TestTheClassifierTagsASubmission(t *testing.T) {
	classifier, counter, store := &fakeClassifier{verdict: gtube}, &countedSpamChecks{}, &fakeStore{}
	if _, err := classifiedSubmitHandler(spamForm(form.SpamTag), store, classifier, counter).Handle(context.Background(), post("https://example.com")); err != nil {
		t.Fatal(err)
	}
	if len(classifier.asked) != 1 || classifier.asked[0].From != "ada@example.com" || classifier.asked[0].FormID != "form-1" {
		t.Fatalf("asked %+v", classifier.asked)
	}
	if len(store.accepted) != 1 {
		t.Fatalf("tag mode delivers: %d accepted", len(store.accepted))
	}
	p, err := decodePayload(store.accepted[0].Payload.Ciphertext)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(p.Subject, submission.SpamSubjectMarker) {
		t.Errorf("subject %q", p.Subject)
	}
	if len(counter.outcomes) != 1 || counter.outcomes[0] != SpamCheckSpam {
		t.Errorf("counted %v", counter.outcomes)
	}
	if got := store.accepted[0].Accepted.SpamCheck; got != submission.SpamCheckChecked {
		t.Errorf("submission.accepted records the spam check as %q", got)
	}
}

func TestTheClassifierRejectsInRejectMode(t *testing.T) {
	store := &fakeStore{}
	_, err := classifiedSubmitHandler(spamForm(form.SpamReject), store, &fakeClassifier{verdict: gtube}, nopSpamCounter{}).
		Handle(context.Background(), post("https://example.com"))
	var rejected *SubmissionRejected
	if !errors.As(err, &rejected) || rejected.Gate != submission.GateSpam || len(store.accepted) != 0 {
		t.Fatalf("want a refusal by the spam gate, got %v (%d accepted)", err, len(store.accepted))
	}
}

func TestAnUnavailableClassifierFailsOpen(t *testing.T) {
	counter, store := &countedSpamChecks{}, &fakeStore{}
	down := &fakeClassifier{err: errors.New("rspamd: unavailable: connection refused")}
	if _, err := classifiedSubmitHandler(spamForm(form.SpamReject), store, down, counter).Handle(context.Background(), post("https://example.com")); err != nil {
		t.Fatalf("a classifier outage must not lose the submission: %v", err)
	}
	p, err := decodePayload(store.accepted[0].Payload.Ciphertext)
	if err != nil || strings.HasPrefix(p.Subject, submission.SpamSubjectMarker) {
		t.Fatalf("untagged: %q %v", p.Subject, err)
	}
	if len(counter.outcomes) != 1 || counter.outcomes[0] != SpamCheckUnavailable {
		t.Errorf("counted %v", counter.outcomes)
	}
	if got := store.accepted[0].Accepted.SpamCheck; got != submission.SpamCheckUnavailable {
		t.Errorf("submission.accepted records the spam check as %q", got)
	}
}

func TestADryRunShowsTheClassifiersScore(t *testing.T) {
	cmd := post("https://example.com")
	cmd.DryRun = true
	_, err := classifiedSubmitHandler(spamForm(form.SpamReject), &fakeStore{}, &fakeClassifier{verdict: gtube}, nopSpamCounter{}).
		Handle(context.Background(), cmd)
	var rejected *SubmissionRejected
	if !errors.As(err, &rejected) {
		t.Fatalf("a GTUBE dry run is refused in reject mode: %v", err)
	}
	for _, g := range rejected.Response.Gates {
		if g.Gate == submission.GateSpam && strings.Contains(g.Message, "score 1000") && strings.Contains(g.Message, "GTUBE") {
			return
		}
	}
	t.Fatalf("no classifier score in the trace: %+v", rejected.Response.Gates)
}
