package application

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/submission"
)

// countedMetrics records what the use cases report.
type countedMetrics struct{ got []string }

func (m *countedMetrics) Submitted(dryRun bool, outcome SubmissionOutcome, gate string) {
	kind := "live"
	if dryRun {
		kind = "dry"
	}
	m.got = append(m.got, kind+" "+string(outcome)+" "+gate)
}

func (m *countedMetrics) DeliveryAttempted(kind, state string) { m.got = append(m.got, kind+" "+state) }

// storedOnce answers every request as a replay of an earlier one.
type storedOnce struct{ fakeStore }

func (storedOnce) IdempotentResponse(context.Context, string, string) (*StoredResponse, error) {
	return &StoredResponse{RequestHash: requestHash("key", post("").Fields)}, nil
}

func TestSubmissionsAreCountedByOutcomeAndGate(t *testing.T) {
	dry := post("https://example.com")
	dry.DryRun = true
	keyed := post("https://example.com")
	keyed.IdempotencyKey = "k1"
	tests := []struct {
		name  string
		store SubmissionStore
		cmd   Submit
		want  string
	}{
		{"an accepted submission", &fakeStore{}, post("https://example.com"), "live accepted "},
		{"a refusal names its gate", &fakeStore{}, post("https://elsewhere.example"), "live refused " + submission.GateOrigin},
		{"a dry run is counted apart", &fakeStore{}, dry, "dry accepted "},
		{"a replay commits nothing new", &storedOnce{}, keyed, "live replayed "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &countedMetrics{}
			forms := &fakeForms{cached: liveForm(1, "example.com"), fresh: liveForm(1, "example.com")}
			h := NewSubmitHandler(forms, tt.store, noEntitlements{}, freePlan{}, plainSealer{}, lenHasher{}, &seqIDs{}, fixedClock{}, noFloods{}, testQuotas, m, noCaptchas(), noSpamChecks(), noUploads(), newMemoryTestInbox(), noHandOff(), uncounted{}, nil)
			_, _ = h.Handle(context.Background(), tt.cmd)
			if !slices.Equal(m.got, []string{tt.want}) {
				t.Fatalf("counted %q, want [%q]", m.got, tt.want)
			}
		})
	}
}

func TestDeliveryAttemptsAreCountedOnceRecorded(t *testing.T) {
	queued := delivery.Queued{DeliveryID: "d1", SubmissionID: "s1", FormID: "f1", Kind: delivery.KindWebhook}
	for _, recordErr := range []error{nil, errors.New("database gone")} {
		m := &countedMetrics{}
		store := &failingRecord{oneDelivery: oneDelivery{payload: &SealedPayload{Ciphertext: []byte(`{"webhook":"https://hooks.example.com"}`)},
			claimed: ClaimedDelivery{Queued: queued}}, err: recordErr}
		h := NewDeliverHandler(store, plainSealer{}, noMail{}, webhookResult{errors.New("503")}, noSecrets{}, NewMemoryTransactor(), noVerifications{}, prefixTokens{},
			MailSettings{}, fixedClock{}, discardLog, m, plainLinks{}, plainSpamLinks{}, plainTemplates{}, nil)
		_, _ = h.Handle(context.Background(), DeliverDue{Limit: 1})
		want := []string{"webhook retrying"}
		if recordErr != nil {
			want = nil // not recorded: the attempt is made again and counted then
		}
		if !slices.Equal(m.got, want) {
			t.Errorf("record error %v: counted %q, want %q", recordErr, m.got, want)
		}
	}
}

// failingRecord fails to record attempts with err.
type failingRecord struct {
	oneDelivery
	err error
}

func (s *failingRecord) RecordAttempts(ctx context.Context, a []Attempt) error {
	if s.err != nil {
		return s.err
	}
	return s.oneDelivery.RecordAttempts(ctx, a)
}
