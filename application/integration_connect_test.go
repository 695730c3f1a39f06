package application

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/form"
)

// pendingCode is a connect code as the world keeps it: by hash.
type pendingCode struct {
	formID    string
	expiresAt time.Time
}

func (w *integrationWorld) Issue(_ context.Context, formID string, t form.IntegrationType, codeHash []byte, expiresAt time.Time) error {
	if w.codes == nil {
		w.codes = map[string]pendingCode{}
	}
	for k, c := range w.codes { // one pending code per form and type
		if c.formID == formID && strings.HasPrefix(k, string(t)+":") {
			delete(w.codes, k)
		}
	}
	w.codes[string(t)+":"+string(codeHash)] = pendingCode{formID: formID, expiresAt: expiresAt}
	return nil
}

func (w *integrationWorld) Redeem(_ context.Context, t form.IntegrationType, codeHash []byte, now time.Time) (string, bool, error) {
	c, ok := w.codes[string(t)+":"+string(codeHash)]
	if !ok || !now.Before(c.expiresAt) {
		return "", false, nil
	}
	delete(w.codes, string(t)+":"+string(codeHash))
	return c.formID, true, nil
}

func (w *integrationWorld) Updates(_ context.Context, offset int64, _ time.Duration) ([]TelegramUpdate, error) {
	var out []TelegramUpdate
	for _, u := range w.updates {
		if u.ID >= offset {
			out = append(out, u)
		}
	}
	return out, nil
}

func (w *integrationWorld) Username(context.Context) (string, error) { return "formd_bot", nil }

func (w *integrationWorld) Poll(_ context.Context, fn func(int64) (int64, error)) (bool, error) {
	next, err := fn(w.offset)
	w.offset = next
	return true, err
}

func (w *integrationWorld) Take(_ context.Context, _ string, limit int, window time.Duration, now time.Time) (bool, time.Duration, error) {
	var kept []time.Time
	for _, at := range w.tests {
		if at.After(now.Add(-window)) {
			kept = append(kept, at)
		}
	}
	w.tests = kept
	if len(kept) >= limit {
		return false, kept[0].Add(window).Sub(now), nil
	}
	w.tests = append(w.tests, now)
	return true, 0, nil
}

func TestATelegramChatIsConnectedOnlyByItsCodeSentFromTheChat(t *testing.T) {
	w := newIntegrationWorld(t)
	t0 := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	clock := &movableClock{now: t0}
	ctx := context.Background()
	configure := NewConfigureIntegrationHandler(w, w, &seqIDs{}, clock, boundSealer{}, allServices{}, w, w, NewSheetProofs(w, w, w, w, clock))
	connect := NewConnectTelegramChatsHandler(w, w, w, w, clock)

	chat := "-1009"
	_, err := configure.Handle(ctx, ConfigureIntegration{Caller: integrationOwner, FormID: "form-1", Type: form.IntegrationTelegram,
		Patch: form.IntegrationPatch{ChatID: &chat}})
	var invalid *domain.InvalidInputError
	if !errors.As(err, &invalid) || invalid.Field != "chatId" {
		t.Fatalf("typing a chat id in: %v, want a 400 naming chatId", err)
	}
	on := true
	rec, err := configure.Handle(ctx, ConfigureIntegration{Caller: integrationOwner, FormID: "form-1", Type: form.IntegrationTelegram,
		Patch: form.IntegrationPatch{Enabled: &on}})
	if err != nil {
		t.Fatal(err)
	}
	c := rec.Connect
	if c == nil || len(c.Code) < 20 || c.Command != "/start "+c.Code || c.URL != "https://t.me/formd_bot?start="+c.Code ||
		!c.ExpiresAt.Equal(t0.Add(time.Hour)) || rec.ChatID != "" {
		t.Fatalf("record = %+v, connect = %+v", rec, c)
	}
	if len(w.codes) != 1 {
		t.Fatalf("pending codes = %d, want 1", len(w.codes))
	}
	for k := range w.codes {
		if strings.Contains(k, c.Code) {
			t.Fatal("the code is kept in clear")
		}
	}

	// Updates that are no connect code of this form connect nothing, and
	// are read past all the same.
	w.updates = []TelegramUpdate{{ID: 7, ChatID: "-1001", Text: "hello"}, {ID: 8, ChatID: "-1001", Text: "/start WRONGCODE"}}
	res, err := connect.Handle(ctx, time.Second)
	if err != nil || !res.Polled || res.Connected != 0 || w.offset != 9 {
		t.Fatalf("res = %+v, %v, offset %d", res, err, w.offset)
	}
	// A code past its hour connects nothing.
	clock.now = t0.Add(2 * time.Hour)
	w.updates = append(w.updates, TelegramUpdate{ID: 9, ChatID: "-1002", Text: c.Command})
	if res, err := connect.Handle(ctx, time.Second); err != nil || res.Connected != 0 {
		t.Fatalf("an expired code: %+v, %v", res, err)
	}

	// A fresh code sent from the chat connects it, once.
	clock.now = t0.Add(3 * time.Hour)
	rec, err = configure.Handle(ctx, ConfigureIntegration{Caller: integrationOwner, FormID: "form-1", Type: form.IntegrationTelegram,
		Patch: form.IntegrationPatch{Enabled: &on}})
	if err != nil || rec.Connect == nil || rec.Connect.Code == c.Code {
		t.Fatalf("a second configuration: %+v, %v; want a new code", rec, err)
	}
	w.updates = append(w.updates, TelegramUpdate{ID: 10, ChatID: "-1003", Text: "/start@formd_bot " + rec.Connect.Code},
		TelegramUpdate{ID: 11, ChatID: "-1004", Text: rec.Connect.Command})
	res, err = connect.Handle(ctx, time.Second)
	if err != nil || res.Connected != 1 || w.offset != 12 {
		t.Fatalf("res = %+v, %v, offset %d", res, err, w.offset)
	}
	if in, _ := w.form().Integration(form.IntegrationTelegram); in.ChatID != "-1003" {
		t.Fatalf("chat = %q, want the one the code came from", in.ChatID)
	}
	if w.Metadata().Actor != (Actor{Type: ActorTelegram, ID: "chat:-1003"}) {
		t.Errorf("metadata = %+v, want the bot as actor", w.Metadata())
	}
	// Once connected, a configuration shows no code.
	rec, err = configure.Handle(ctx, ConfigureIntegration{Caller: integrationOwner, FormID: "form-1", Type: form.IntegrationTelegram,
		Patch: form.IntegrationPatch{Enabled: &on}})
	if err != nil || rec.Connect != nil || rec.ChatID != "-1003" {
		t.Fatalf("configuring a connected chat: %+v, %v", rec, err)
	}
}

func TestIntegrationTestsAreLimitedPerForm(t *testing.T) {
	w := newIntegrationWorld(t)
	clock := &movableClock{now: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)}
	ctx := context.Background()
	url := "https://hooks.slack.com/services/T/B/x"
	w.change(func(f *form.Form) error {
		return f.ConfigureIntegration(form.IntegrationSlack, form.IntegrationPatch{TargetURL: &url}, clock.now)
	})
	h := NewTestIntegrationHandler(w, w, &seqIDs{}, clock, allServices{}, w)
	for i := range form.IntegrationTestLimit {
		if _, err := h.Handle(ctx, TestIntegration{Caller: integrationOwner, FormID: "form-1", Type: form.IntegrationSlack}); err != nil {
			t.Fatalf("test %d: %v", i+1, err)
		}
	}
	clock.now = clock.now.Add(time.Minute)
	_, err := h.Handle(ctx, TestIntegration{Caller: integrationOwner, FormID: "form-1", Type: form.IntegrationSlack})
	var tooMany *domain.TooManyRequestsError
	if !errors.As(err, &tooMany) || tooMany.RetryAfter != form.IntegrationTestWindow-time.Minute {
		t.Fatalf("one test too many: %v, want 429 with Retry-After %v", err, form.IntegrationTestWindow-time.Minute)
	}
	if len(w.Queued()) != form.IntegrationTestLimit {
		t.Fatalf("queued %d tests, want %d", len(w.Queued()), form.IntegrationTestLimit)
	}
	clock.now = clock.now.Add(form.IntegrationTestWindow)
	if _, err := h.Handle(ctx, TestIntegration{Caller: integrationOwner, FormID: "form-1", Type: form.IntegrationSlack}); err != nil {
		t.Fatalf("after the window: %v", err)
	}
}

func (w *integrationWorld) HashValue(formID, field, value string) string {
	return "h(" + formID + "," + field + "," + value + ")"
}

func (w *integrationWorld) ReadCell(_ context.Context, spreadsheetID, a1 string) (string, error) {
	if a1 != form.SheetProofRange {
		return "", errors.New("wrong range " + a1)
	}
	v, ok := w.cells[spreadsheetID]
	if !ok {
		return "", errors.New("google sheets answered 404: Requested entity was not found.")
	}
	return v, nil
}

func TestASpreadsheetIsProvenByItsCodeInTheProofCellBeforeRowsGoThere(t *testing.T) {
	w := newIntegrationWorld(t)
	clock := &movableClock{now: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)}
	ctx := context.Background()
	configure := NewConfigureIntegrationHandler(w, w, &seqIDs{}, clock, boundSealer{}, allServices{}, w, w, NewSheetProofs(w, w, w, w, clock))
	on, sheet, name := true, "1AbCdEfGhIjKlMnOp", "Leads"
	patch := func() IntegrationRecord {
		t.Helper()
		rec, err := configure.Handle(ctx, ConfigureIntegration{Caller: integrationOwner, FormID: "form-1", Type: form.IntegrationGoogleSheets,
			Patch: form.IntegrationPatch{Enabled: &on, SpreadsheetID: &sheet, SheetName: &name}})
		if err != nil {
			t.Fatal(err)
		}
		return rec
	}
	// Not shared with the service account, then shared but without the
	// code: the same answer, unproven, with the code to write.
	first := patch()
	w.cells = map[string]string{sheet: "something else"}
	second := patch()
	if first.SheetProven || second.SheetProven || first.Proof == nil || *first.Proof != *second.Proof ||
		first.Proof.Range != "formd!A1" || !strings.HasPrefix(first.Proof.Code, "formd-proof-") {
		t.Fatalf("unproven answers: %+v %+v / %+v %+v", first, first.Proof, second, second.Proof)
	}
	if w.form().AwaitsSheetProof() != true {
		t.Fatal("proven without the code")
	}
	w.cells[sheet] = " " + first.Proof.Code + "\n"
	third := patch()
	if !third.SheetProven || third.Proof != nil {
		t.Fatalf("with the code in the cell: %+v", third)
	}
	if w.form().AwaitsSheetProof() || w.Metadata().Actor != (Actor{Type: "session", ID: "cred-1"}) {
		t.Fatalf("proof not recorded by the caller: %+v", w.Metadata())
	}
	// Each read counts against the form's integration tests.
	if len(w.tests) != 3 {
		t.Fatalf("reads counted = %d, want 3", len(w.tests))
	}
}
