package application

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/submission"
)

// plainSpamLinks signs nothing: a token is "signed:" and what it names, so
// a token without the prefix is one formd never made.
type plainSpamLinks struct{}

func (plainSpamLinks) Token(l SpamLink) string {
	return "signed:" + l.FormID + ":" + l.SubmissionID + ":" + strconv.FormatInt(l.Expires.Unix(), 10)
}

func (plainSpamLinks) Read(token string) (SpamLink, error) {
	parts := strings.Split(token, ":")
	if len(parts) != 4 || parts[0] != "signed" {
		return SpamLink{}, ErrBadSpamLink
	}
	unix, err := strconv.ParseInt(parts[3], 10, 64)
	if err != nil {
		return SpamLink{}, ErrBadSpamLink
	}
	return SpamLink{FormID: parts[1], SubmissionID: parts[2], Expires: time.Unix(unix, 0).UTC()}, nil
}

// markWorld is one form (form-1) whose submission sub-1 is held, kept or
// shredded, and a classifier that counts what it was taught.
type markWorld struct {
	*MemoryTransactor
	held     map[string]SealedPayload // held submissions' payloads
	kept     map[string]SealedPayload // every kept payload, held or not
	shredded []string
	taught   []SpamMessage
}

func newMarkWorld(t *testing.T) *markWorld {
	t.Helper()
	f, err := form.Create(form.NewForm{ID: "form-1", AccountID: "acct-1", WorkspaceID: "ws-1", AccessKeyHash: "ab",
		Settings: form.Settings{Name: "Contact", RecipientEmail: "owner@example.com", Spam: form.Spam{Mode: form.SpamTag}}},
		form.Policy{}, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	m := NewMemoryTransactor()
	m.Seed(f.ID(), anys(f.Changes())...)
	return &markWorld{MemoryTransactor: m, held: map[string]SealedPayload{}, kept: map[string]SealedPayload{}}
}

func (w *markWorld) FormByID(_ context.Context, id string) (FormRecord, error) {
	if id != "form-1" {
		return FormRecord{}, domain.ErrNotFound
	}
	return FormRecord{ID: id, AccountID: "acct-1", WorkspaceID: "ws-1", Settings: form.Settings{Name: "Contact"}}, nil
}

func (w *markWorld) HeldPage(context.Context, string, *ArchiveCursor, int) ([]HeldSubmission, error) {
	return nil, nil
}
func (w *markWorld) HeldCount(context.Context, string) (int, error) { return len(w.held), nil }
func (w *markWorld) HeldSubmission(_ context.Context, formID, id string) (HeldSubmission, error) {
	sealed, ok := w.held[id]
	if !ok || formID != "form-1" {
		return HeldSubmission{}, domain.ErrNotFound
	}
	return HeldSubmission{SubmissionID: id, Sealed: sealed}, nil
}
func (w *markWorld) Release(context.Context, string, string, time.Time, time.Time) ([]delivery.Queued, error) {
	return nil, errors.New("a spam mark releases nothing")
}
func (w *markWorld) ShredHeld(_ context.Context, _, id string, _ time.Time) error {
	delete(w.held, id)
	delete(w.kept, id)
	w.shredded = append(w.shredded, id)
	return nil
}
func (w *markWorld) ShredExpiredHeld(context.Context, time.Time, int) (int, error) { return 0, nil }

func (w *markWorld) KeptPayload(_ context.Context, formID, id string) (SealedPayload, error) {
	sealed, ok := w.kept[id]
	if !ok || formID != "form-1" {
		return SealedPayload{}, domain.ErrNotFound
	}
	return sealed, nil
}

// ReviewedAsSpam reads the trail the marks recorded.
func (w *markWorld) ReviewedAsSpam(_ context.Context, _, id string) (bool, error) {
	for _, e := range w.Events() {
		if r, ok := e.Event.(form.SpamReviewed); ok && r.SubmissionID == id && r.Verdict == form.ReviewedSpam {
			return true, nil
		}
	}
	return false, nil
}

func (w *markWorld) Classify(context.Context, SpamMessage) (SpamVerdict, error) {
	return SpamVerdict{}, nil
}
func (w *markWorld) Learn(_ context.Context, m SpamMessage, spam bool) error {
	if !spam {
		return errors.New("a spam mark teaches spam")
	}
	w.taught = append(w.taught, m)
	return nil
}

// unusedAccessLog is the Spam folder's access log, which a mark never reads.
type unusedAccessLog struct{ SubmissionAccessLog }

func (w *markWorld) seal(t *testing.T, message string) SealedPayload {
	t.Helper()
	plain, err := encodePayload(Payload{RequestID: "req-1", Fields: []submission.Field{{Name: "message", Value: message}}})
	if err != nil {
		t.Fatal(err)
	}
	return SealedPayload{Ciphertext: plain}
}

func (w *markWorld) handler() *MarkSpamHandler {
	spam := NewSpamChecks(w, nopSpamCounter{}, quietLog())
	folder := NewSpamFolderHandler(w, w, w, unusedAccessLog{}, plainSealer{}, spam, fixedClock{})
	return NewMarkSpamHandler(w, w, folder, w, plainSealer{}, spam, plainSpamLinks{}, fixedClock{})
}

// spamReviews are the form.spam_reviewed events recorded, with who recorded them.
func (w *markWorld) spamReviews() []RecordedEvent {
	var out []RecordedEvent
	for _, e := range w.Events() {
		if _, ok := e.Event.(form.SpamReviewed); ok {
			out = append(out, e)
		}
	}
	return out
}

func linkTo(submissionID string) string {
	return plainSpamLinks{}.Token(SpamLink{FormID: "form-1", SubmissionID: submissionID, Expires: fixedClock{}.Now().Add(time.Hour)})
}

func mark(t *testing.T, w *markWorld, token string) SpamMarked {
	t.Helper()
	out, err := w.handler().Handle(context.Background(), MarkSpam{Token: token, RequestID: "req-mark"})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestASpamLinkToAHeldSubmissionReviewsItAsTheSpamFolderDoes(t *testing.T) {
	w := newMarkWorld(t)
	w.held["sub-1"] = w.seal(t, "cheap pills")
	w.kept["sub-1"] = w.held["sub-1"]
	out := mark(t, w, linkTo("sub-1"))
	if !out.Learned || !out.Kept || out.AlreadyMarked || out.FormName != "Contact" {
		t.Fatalf("marked %+v, want learned from the kept content", out)
	}
	if len(w.taught) != 1 || w.taught[0].Fields[0].Value != "cheap pills" {
		t.Errorf("taught %+v, want the held content as spam", w.taught)
	}
	if len(w.shredded) != 1 || w.shredded[0] != "sub-1" {
		t.Errorf("shredded %v, want the held submission", w.shredded)
	}
	reviews := w.spamReviews()
	if len(reviews) != 1 || reviews[0].Event != (form.SpamReviewed{SubmissionID: "sub-1", Verdict: form.ReviewedSpam, Learned: true,
		At: fixedClock{}.Now()}) {
		t.Fatalf("recorded %+v, want one learned spam review", reviews)
	}
	if a := reviews[0].Metadata.Actor; a != (Actor{Type: ActorMailLink, ID: "sub-1"}) {
		t.Errorf("actor %+v, want the mail link of the submission", a)
	}
	if again := mark(t, w, linkTo("sub-1")); !again.AlreadyMarked || len(w.spamReviews()) != 1 || len(w.taught) != 1 {
		t.Errorf("a second mark %+v recorded or taught again", again)
	}
}

func TestASpamLinkToAKeptSubmissionTeachesTheClassifierAndKeepsIt(t *testing.T) {
	w := newMarkWorld(t)
	w.kept["sub-1"] = w.seal(t, "cheap pills")
	out := mark(t, w, linkTo("sub-1"))
	if !out.Learned || !out.Kept || out.AlreadyMarked {
		t.Fatalf("marked %+v, want learned from the kept content", out)
	}
	if len(w.taught) != 1 || w.taught[0].RequestID != "req-1" {
		t.Errorf("taught %+v, want the kept content", w.taught)
	}
	if _, still := w.kept["sub-1"]; !still || len(w.shredded) != 0 {
		t.Error("an archived submission is the owner's to erase: a mark must not shred it")
	}
	if reviews := w.spamReviews(); len(reviews) != 1 || !reviews[0].Event.(form.SpamReviewed).Learned {
		t.Fatalf("recorded %+v, want one learned spam review", reviews)
	}
	if again := mark(t, w, linkTo("sub-1")); !again.AlreadyMarked || len(w.spamReviews()) != 1 || len(w.taught) != 1 {
		t.Errorf("a second mark %+v recorded or taught again", again)
	}
}

func TestASpamLinkToAShreddedSubmissionRecordsTheJudgementOnly(t *testing.T) {
	w := newMarkWorld(t)
	out := mark(t, w, linkTo("sub-1"))
	if out.Learned || out.Kept || out.AlreadyMarked {
		t.Fatalf("marked %+v, want recorded without content", out)
	}
	if len(w.taught) != 0 {
		t.Errorf("taught %+v from nothing", w.taught)
	}
	reviews := w.spamReviews()
	if len(reviews) != 1 || reviews[0].Event != (form.SpamReviewed{SubmissionID: "sub-1", Verdict: form.ReviewedSpam, At: fixedClock{}.Now()}) {
		t.Fatalf("recorded %+v, want one unlearned spam review", reviews)
	}
	if again := mark(t, w, linkTo("sub-1")); !again.AlreadyMarked || len(w.spamReviews()) != 1 {
		t.Errorf("a second mark %+v recorded again", again)
	}
}

func TestABadOrExpiredSpamLinkMarksNothing(t *testing.T) {
	w := newMarkWorld(t)
	w.kept["sub-1"] = w.seal(t, "hello")
	expired := plainSpamLinks{}.Token(SpamLink{FormID: "form-1", SubmissionID: "sub-1", Expires: fixedClock{}.Now()})
	goneForm := plainSpamLinks{}.Token(SpamLink{FormID: "form-2", SubmissionID: "sub-1", Expires: fixedClock{}.Now().Add(time.Hour)})
	for name, tt := range map[string]struct {
		token string
		want  error
	}{
		"altered":        {"forged:" + strings.TrimPrefix(linkTo("sub-1"), "signed:"), ErrBadSpamLink},
		"expired":        {expired, ErrSpamLinkExpired},
		"of a gone form": {goneForm, ErrBadSpamLink},
		"empty":          {"", ErrBadSpamLink},
	} {
		if _, err := w.handler().Handle(context.Background(), MarkSpam{Token: tt.token}); !errors.Is(err, tt.want) {
			t.Errorf("%s: err = %v, want %v", name, err, tt.want)
		}
		if _, err := NewSpamLinkHandler(w, plainSpamLinks{}, fixedClock{}).Handle(context.Background(), SpamLinkQuery{Token: tt.token}); !errors.Is(err, tt.want) {
			t.Errorf("%s: the page's err = %v, want %v", name, err, tt.want)
		}
	}
	if len(w.taught) != 0 || len(w.spamReviews()) != 0 {
		t.Error("a refused link taught or recorded something")
	}
}

func TestOpeningASpamLinkChangesNothing(t *testing.T) {
	w := newMarkWorld(t)
	w.held["sub-1"] = w.seal(t, "hello")
	view, err := NewSpamLinkHandler(w, plainSpamLinks{}, fixedClock{}).Handle(context.Background(), SpamLinkQuery{Token: linkTo("sub-1")})
	if err != nil || view.FormName != "Contact" {
		t.Fatalf("view %+v, %v", view, err)
	}
	if len(w.held) != 1 || len(w.taught) != 0 || len(w.spamReviews()) != 0 {
		t.Error("opening the link changed something")
	}
}

// The notification mail of a form whose spam gate is on ends with the link
// that marks its submission as spam; other mails and test renderings have
// none.
func TestTheNotificationMailOfASpamCheckedFormOffersTheSpamLink(t *testing.T) {
	q := delivery.Queued{DeliveryID: "d1", SubmissionID: "s1", FormID: "f1", Kind: delivery.KindEmail}
	r := NewRenderer(MailSettings{BaseURL: "https://forms.example.com/"}, noSecrets{}, plainSealer{}, plainLinks{}, plainSpamLinks{}, fixedClock{}, plainTemplates{})
	p := Payload{FormName: "Contact", Recipient: "owner@example.com", Fields: []submission.Field{{Name: "message", Value: "hi"}}, SpamLink: true}
	out, err := r.Render(context.Background(), q, p)
	if err != nil {
		t.Fatal(err)
	}
	token := plainSpamLinks{}.Token(SpamLink{FormID: "f1", SubmissionID: "s1", Expires: fixedClock{}.Now().Add(SpamLinkValidity)})
	want := "\nWas this spam? Mark it, so the spam filter learns: https://forms.example.com/spam/" + token + "\n"
	if !strings.HasSuffix(out.Mail.Text, want) {
		t.Errorf("mail text %q, want it to end with %q", out.Mail.Text, want)
	}
	if test, _ := r.RenderTest(context.Background(), q, p); strings.Contains(test.Mail.Text, "/spam/") {
		t.Errorf("a test submission was never stored, there is nothing to mark: %q", test.Mail.Text)
	}
	p.SpamLink = false
	if off, _ := r.Render(context.Background(), q, p); strings.Contains(off.Mail.Text, "/spam/") {
		t.Errorf("a form without a spam gate has no spam link: %q", off.Mail.Text)
	}
	p.SpamLink, p.Autoresponder, p.SubmitterEmail = true, &AutoresponderMail{Subject: "Thanks", Message: "We got it"}, "ada@example.com"
	if auto, _ := r.Render(context.Background(), delivery.Queued{DeliveryID: "d2", SubmissionID: "s1", FormID: "f1", Kind: delivery.KindAutoresponder}, p); strings.Contains(auto.Mail.Text, "/spam/") {
		t.Errorf("the submitter's autoresponder must not offer the owner's spam link: %q", auto.Mail.Text)
	}
}

// The flag that asks for the link survives the sealed payload, and a
// payload sealed before it existed reads as without it.
func TestTheSpamLinkFlagRoundTripsInVersion1(t *testing.T) {
	b, err := encodePayload(Payload{Subject: "Hi", SpamLink: true})
	if err != nil {
		t.Fatal(err)
	}
	if p, err := decodePayload(b); err != nil || !p.SpamLink {
		t.Fatalf("decoded %+v, %v", p, err)
	}
	if plain, _ := encodePayload(Payload{Subject: "Hi"}); strings.Contains(string(plain), "spamLink") {
		t.Errorf("a payload without the link writes no flag: %s", plain)
	}
	if p, err := decodePayload([]byte(`{"v":1,"subject":"Hi"}`)); err != nil || p.SpamLink {
		t.Errorf("an older payload decoded %+v, %v", p, err)
	}
}

// A submission accepted while its form's spam gate is on asks for the spam
// link in its sealed payload; one accepted with the gate off does not.
func TestASubmissionAcceptedWithTheSpamGateOnAsksForTheSpamLink(t *testing.T) {
	for mode, want := range map[form.SpamMode]bool{form.SpamTag: true, form.SpamHold: true, form.SpamReject: true, form.SpamOff: false, "": false} {
		store := &fakeStore{}
		clean := &fakeClassifier{verdict: SpamVerdict{Score: 0, RequiredScore: 15, Action: SpamActionNone}}
		if _, err := classifiedSubmitHandler(spamForm(mode), store, clean, nopSpamCounter{}).Handle(context.Background(), post("https://example.com")); err != nil {
			t.Fatal(err)
		}
		if len(store.accepted) != 1 {
			t.Fatalf("%q: %d accepted", mode, len(store.accepted))
		}
		p, err := decodePayload(store.accepted[0].Payload.Ciphertext)
		if err != nil {
			t.Fatal(err)
		}
		if p.SpamLink != want {
			t.Errorf("mode %q: SpamLink %v, want %v", mode, p.SpamLink, want)
		}
	}
}
