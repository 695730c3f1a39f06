package application

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/submission"
)

// folderFakes are the Spam folder's ports: form-1 of acct-1 (archiving
// for 30 days) with one held submission, held-1, and a log of what was
// done in order.
type folderFakes struct {
	steps    []string
	learnErr error
	learned  []SpamMessage
	accesses []SubmissionAccess
	until    time.Time // the archive's end a release was given
}

func (f *folderFakes) FormByID(_ context.Context, id string) (FormRecord, error) {
	if id != "form-1" {
		return FormRecord{}, domain.ErrNotFound
	}
	return FormRecord{ID: id, AccountID: "acct-1", WorkspaceID: "ws-1",
		Settings: form.Settings{Archive: form.Archive{Enabled: true, RetentionDays: 30}}}, nil
}

var heldAt = time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)

func (f *folderFakes) HeldSubmission(_ context.Context, _, id string) (HeldSubmission, error) {
	if id != "held-1" {
		return HeldSubmission{}, domain.ErrNotFound
	}
	plain, err := encodePayload(Payload{RequestID: "req-1", SubmitterEmail: "ada@example.org", Subject: "Offer",
		Fields: []submission.Field{{Name: "message", Value: "cheap pills"}}, Held: &SpamTag{Score: 15, Reasons: []string{"GTUBE"}}})
	if err != nil {
		return HeldSubmission{}, err
	}
	return HeldSubmission{SubmissionID: id, RequestID: "req-1", HeldAt: heldAt, Until: heldAt.AddDate(0, 0, 30),
		Sealed: SealedPayload{Ciphertext: plain}}, nil
}

func (f *folderFakes) HeldPage(context.Context, string, *ArchiveCursor, int) ([]HeldSubmission, error) {
	return nil, nil
}
func (f *folderFakes) HeldCount(context.Context, string) (int, error) { return 1, nil }

func (f *folderFakes) Release(_ context.Context, _, id string, archiveUntil, _ time.Time) ([]delivery.Queued, error) {
	f.steps, f.until = append(f.steps, "release"), archiveUntil
	return []delivery.Queued{{DeliveryID: "d-1", SubmissionID: id}}, nil
}

func (f *folderFakes) ShredHeld(context.Context, string, string, time.Time) error {
	f.steps = append(f.steps, "shred")
	return nil
}

func (f *folderFakes) ShredExpiredHeld(context.Context, time.Time, int) (int, error) { return 0, nil }

func (f *folderFakes) Classify(context.Context, SpamMessage) (SpamVerdict, error) {
	return SpamVerdict{}, nil
}

func (f *folderFakes) Learn(_ context.Context, m SpamMessage, spam bool) error {
	f.steps, f.learned = append(f.steps, map[bool]string{true: "learnspam", false: "learnham"}[spam]), append(f.learned, m)
	return f.learnErr
}

func (f *folderFakes) RecordAccess(_ context.Context, a SubmissionAccess) (int64, error) {
	f.accesses = append(f.accesses, a)
	return 1, nil
}
func (f *folderFakes) CountAccess(context.Context, int64, int) error { return nil }
func (f *folderFakes) FormAccesses(context.Context, string, int) ([]SubmissionAccess, error) {
	return nil, nil
}

// folderForm is a store holding form-1's creation.
func folderForm(t *testing.T) *MemoryTransactor {
	t.Helper()
	f, err := form.Create(form.NewForm{ID: "form-1", AccountID: "acct-1", WorkspaceID: "ws-1", AccessKeyHash: "ab",
		Settings: form.Settings{Name: "Contact", RecipientEmail: "owner@example.com"}}, form.Policy{}, heldAt)
	if err != nil {
		t.Fatal(err)
	}
	m := NewMemoryTransactor()
	m.Seed(f.ID(), anys(f.Changes())...)
	return m
}

func newFolderHandler(f *folderFakes, tx *MemoryTransactor) *SpamFolderHandler {
	return NewSpamFolderHandler(tx, f, f, f, plainSealer{}, NewSpamChecks(f, nopSpamCounter{}, quietLog()), fixedClock{})
}

var reviewer = Session{AccountID: "acct-1", Access: account.TokenAccess("ws-1", []account.Scope{account.ScopeSubmissionsDelete})}

func TestAReviewTeachesTheClassifierBeforeTheFolderChangesAndIsAudited(t *testing.T) {
	for _, c := range []struct {
		verdict string
		steps   []string
	}{
		{form.ReviewedNotSpam, []string{"learnham", "release"}},
		{form.ReviewedSpam, []string{"learnspam", "shred"}},
		{form.ReviewedDeleted, []string{"shred"}},
	} {
		t.Run(c.verdict, func(t *testing.T) {
			f, tx := &folderFakes{}, folderForm(t)
			got, err := newFolderHandler(f, tx).Review(context.Background(), ReviewHeld{Caller: reviewer, RequestID: "req-9",
				FormID: "form-1", SubmissionID: "held-1", Verdict: c.verdict})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(f.steps, c.steps) {
				t.Fatalf("steps %v, want %v: the content must be learned while it is there", f.steps, c.steps)
			}
			if got.Learned != (c.verdict != form.ReviewedDeleted) {
				t.Errorf("learned = %v", got.Learned)
			}
			if len(f.learned) > 0 && (f.learned[0].From != "ada@example.org" || f.learned[0].Subject != "Offer" || f.learned[0].RequestID != "req-1") {
				t.Errorf("learned %+v, want the held message as the classifier read it", f.learned[0])
			}
			if c.verdict == form.ReviewedNotSpam && (!slices.Equal(got.DeliveryIDs, []string{"d-1"}) || !f.until.Equal(heldAt.AddDate(0, 0, 30))) {
				t.Errorf("release: %+v, archive until %v; want its deliveries, archived from when it arrived", got, f.until)
			}
			events := tx.Stream("form-1")
			reviewed, ok := events[len(events)-1].(form.SpamReviewed)
			if !ok || reviewed.SubmissionID != "held-1" || reviewed.Verdict != c.verdict || reviewed.Learned != got.Learned {
				t.Errorf("audit event %#v", events[len(events)-1])
			}
		})
	}
}

func TestAReviewTheClassifierCannotLearnStillStands(t *testing.T) {
	f, tx := &folderFakes{learnErr: errors.New("rspamd: controller unreachable")}, folderForm(t)
	got, err := newFolderHandler(f, tx).Review(context.Background(), ReviewHeld{Caller: reviewer, FormID: "form-1", SubmissionID: "held-1",
		Verdict: form.ReviewedSpam})
	if err != nil || got.Learned || !slices.Equal(f.steps, []string{"learnspam", "shred"}) {
		t.Fatalf("review = %+v, %v, steps %v; want it shredded, not learned", got, err, f.steps)
	}
}

func TestTheSpamFolderRefusesWithoutItsScopesAndRecordsEveryRead(t *testing.T) {
	f := &folderFakes{}
	h := newFolderHandler(f, folderForm(t))
	readerOnly := Session{AccountID: "acct-1", Access: account.TokenAccess("ws-1", []account.Scope{account.ScopeSubmissionsRead})}
	var denied *domain.PermissionDeniedError
	if _, err := h.Review(context.Background(), ReviewHeld{Caller: readerOnly, FormID: "form-1", SubmissionID: "held-1",
		Verdict: form.ReviewedNotSpam}); !errors.As(err, &denied) || len(f.steps) != 0 {
		t.Errorf("a review without submissions:delete = %v (steps %v), want a refusal before anything", err, f.steps)
	}
	if _, err := h.Get(context.Background(), reviewer, "req-1", "form-1", "held-1"); !errors.As(err, &denied) {
		t.Errorf("a read without submissions:read = %v, want a refusal", err)
	}
	e, err := h.Get(context.Background(), readerOnly, "req-2", "form-1", "held-1")
	if err != nil || e.Score != 15 || !slices.Equal(e.Reasons, []string{"GTUBE"}) || e.SubmitterEmail != "ada@example.org" {
		t.Fatalf("get = %+v, %v", e, err)
	}
	if len(f.accesses) != 1 || f.accesses[0].Action != AccessRead || f.accesses[0].Filters["folder"] != "spam" {
		t.Errorf("accesses %+v, want the read recorded as the Spam folder's", f.accesses)
	}
	var invalid *domain.InvalidInputError
	if _, err := h.Review(context.Background(), ReviewHeld{Caller: reviewer, FormID: "form-1", SubmissionID: "held-1",
		Verdict: "maybe"}); !errors.As(err, &invalid) {
		t.Errorf("an unknown verdict = %v, want invalid input", err)
	}
}
