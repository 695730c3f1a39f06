package application

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/submission"
)

// logWorld is a delivery log of fixed records and a read model of one form
// (form-1 of acct-1); it records every requeue.
type logWorld struct {
	ReadModel
	records   map[string]DeliveryRecord
	requeued  []delivery.RetryRequested
	mds       []Metadata
	filters   []DeliveryFilter
	page      []DeliveryRecord
	requeueFn func(rec DeliveryRecord) error
	streams   map[string][]HistoryEntry
}

func (w *logWorld) StreamHistory(_ context.Context, id string) ([]HistoryEntry, error) {
	return w.streams[id], nil
}

func (w *logWorld) FormByID(_ context.Context, id string) (FormRecord, error) {
	if id != "form-1" {
		return FormRecord{}, domain.ErrNotFound
	}
	return FormRecord{ID: id, AccountID: "acct-1"}, nil
}

func (w *logWorld) FormDeliveries(_ context.Context, _ string, f DeliveryFilter) ([]DeliveryRecord, error) {
	w.filters = append(w.filters, f)
	return w.page, nil
}

func (w *logWorld) SubmissionDeliveries(context.Context, string) ([]DeliveryRecord, error) {
	return nil, nil
}

func (w *logWorld) DeliveryByID(_ context.Context, id string) (DeliveryRecord, error) {
	r, ok := w.records[id]
	if !ok {
		return DeliveryRecord{}, domain.ErrNotFound
	}
	return r, nil
}

func (w *logWorld) Requeue(_ context.Context, rec DeliveryRecord, e delivery.RetryRequested, md Metadata) (DeliveryRecord, error) {
	if w.requeueFn != nil {
		if err := w.requeueFn(rec); err != nil {
			return DeliveryRecord{}, err
		}
	}
	w.requeued, w.mds = append(w.requeued, e), append(w.mds, md)
	rec.State = delivery.StateQueued
	return rec, nil
}

var owner = Session{AccountID: "acct-1", CredentialID: "cred", ActorType: ActorSession, Access: account.FullAccess()}

func newLogWorld() *logWorld {
	failed := DeliveryRecord{ID: "d-failed", AccountID: "acct-1", FormID: "form-1", SubmissionID: "s-1",
		Kind: delivery.KindWebhook, State: delivery.StateFailed, PayloadKept: true}
	shredded := failed
	shredded.ID, shredded.PayloadKept = "d-shredded", false
	succeeded := failed
	succeeded.ID, succeeded.State = "d-succeeded", delivery.StateSucceeded
	theirs := failed
	theirs.ID, theirs.AccountID = "d-theirs", "acct-2"
	accountMail := DeliveryRecord{ID: "d-account", AccountID: "acct-1", VerificationID: "v-1",
		Kind: delivery.KindAccountVerification, State: delivery.StateFailed}
	verification := DeliveryRecord{ID: "d-recipient", AccountID: "acct-1", FormID: "form-1", VerificationID: "v-2",
		Kind: delivery.KindRecipientVerification, State: delivery.StateFailed}
	w := &logWorld{records: map[string]DeliveryRecord{}}
	for _, r := range []DeliveryRecord{failed, shredded, succeeded, theirs, accountMail, verification} {
		w.records[r.ID] = r
	}
	return w
}

func TestRetryDelivery(t *testing.T) {
	week := FailedPayloadRetention(delivery.DefaultFailedPayloadRetention)
	tests := []struct {
		name    string
		id      string
		caller  Session
		requeue func(DeliveryRecord) error
		wantErr string // "" when requeued
	}{
		{"a failed delivery with its payload", "d-failed", owner, nil, ""},
		{"a failed recipient verification mail (no payload)", "d-recipient", owner, nil, ""},
		{"another account's delivery", "d-theirs", owner, nil, "not found"},
		{"an account verification mail", "d-account", owner, nil, "not found"},
		{"an unknown delivery", "d-none", owner, nil, "not found"},
		{"a succeeded delivery", "d-succeeded", owner, nil, "Only a failed delivery can be retried; this one is succeeded."},
		{"a delivery whose payload was shredded", "d-shredded", owner, nil, "deleted after 7 days"},
		{"the payload shredded meanwhile", "d-failed", owner, func(DeliveryRecord) error { return ErrPayloadDeleted }, "deleted after 7 days"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newLogWorld()
			w.requeueFn = tt.requeue
			h := NewRetryDeliveryHandler(w, fixedClock{}, week)
			got, err := h.Handle(context.Background(), RetryDelivery{Caller: tt.caller, RequestID: "req-1", DeliveryID: tt.id})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				if len(w.requeued) != 0 {
					t.Errorf("requeued %v after a refusal", w.requeued)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.State != delivery.StateQueued || len(w.requeued) != 1 || !w.requeued[0].At.Equal(fixedClock{}.Now()) {
				t.Errorf("got %+v, requeued %v", got, w.requeued)
			}
			if md := w.mds[0]; md.Actor != (Actor{Type: ActorSession, ID: "cred"}) || md.RequestID != "req-1" || md.AccountID != "acct-1" {
				t.Errorf("metadata %+v does not name the caller", md)
			}
		})
	}
}

// A retry that lost a race to another says what the delivery is now.
func TestRetryDeliveryThatLostARace(t *testing.T) {
	w := newLogWorld()
	w.requeueFn = func(rec DeliveryRecord) error {
		rec.State = delivery.StateQueued
		w.records[rec.ID] = rec
		return domain.ErrConcurrency
	}
	h := NewRetryDeliveryHandler(w, fixedClock{}, FailedPayloadRetention(delivery.DefaultFailedPayloadRetention))
	_, err := h.Handle(context.Background(), RetryDelivery{Caller: owner, DeliveryID: "d-failed"})
	var forbidden *domain.ForbiddenError
	if !errors.As(err, &forbidden) || !strings.Contains(forbidden.Message, "this one is queued") {
		t.Fatalf("err = %v, want the refusal of a queued delivery", err)
	}
}

func TestListDeliveries(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	three := []DeliveryRecord{{ID: "c", CreatedAt: at.Add(2)}, {ID: "b", CreatedAt: at.Add(1)}, {ID: "a", CreatedAt: at}}
	tests := []struct {
		name       string
		q          ListDeliveries
		page       []DeliveryRecord
		wantErr    string
		wantFilter DeliveryFilter
		wantIDs    []string
		wantNext   *DeliveryCursor
	}{
		{"defaults", ListDeliveries{FormID: "form-1"}, nil, "", DeliveryFilter{Limit: DefaultDeliveryPage + 1}, nil, nil},
		{"notification is the stored email kind", ListDeliveries{FormID: "form-1", Kind: "notification", State: "failed", Limit: 5}, nil, "",
			DeliveryFilter{Kinds: []string{delivery.KindEmail}, State: "failed", Limit: 6}, nil, nil},
		{"a page followed by another", ListDeliveries{FormID: "form-1", Limit: 2}, three, "",
			DeliveryFilter{Limit: 3}, []string{"c", "b"}, &DeliveryCursor{CreatedAt: at.Add(1), ID: "b"}},
		{"the last page", ListDeliveries{FormID: "form-1", Limit: 3}, three, "",
			DeliveryFilter{Limit: 4}, []string{"c", "b", "a"}, nil},
		{"limit too large", ListDeliveries{FormID: "form-1", Limit: MaxDeliveryPage + 1}, nil, "limit must be between 1 and 200", DeliveryFilter{}, nil, nil},
		{"negative limit", ListDeliveries{FormID: "form-1", Limit: -1}, nil, "limit", DeliveryFilter{}, nil, nil},
		{"unknown state", ListDeliveries{FormID: "form-1", State: "lost"}, nil, "state must be one of", DeliveryFilter{}, nil, nil},
		{"a kind the log never shows", ListDeliveries{FormID: "form-1", Kind: "password_reset"}, nil, "kind must be one of", DeliveryFilter{}, nil, nil},
		{"the stored name of notifications", ListDeliveries{FormID: "form-1", Kind: "email"}, nil, "kind must be one of", DeliveryFilter{}, nil, nil},
		{"another account's form", ListDeliveries{FormID: "form-2"}, nil, "not found", DeliveryFilter{}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newLogWorld()
			w.page = tt.page
			tt.q.Caller = owner
			page, err := NewListDeliveriesHandler(w, w).Handle(context.Background(), tt.q)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				if len(w.filters) != 0 {
					t.Errorf("read the log after a refusal")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(w.filters) != 1 || w.filters[0].Limit != tt.wantFilter.Limit || w.filters[0].State != tt.wantFilter.State ||
				strings.Join(w.filters[0].Kinds, ",") != strings.Join(tt.wantFilter.Kinds, ",") {
				t.Errorf("filter %+v, want %+v", w.filters, tt.wantFilter)
			}
			var ids []string
			for _, d := range page.Deliveries {
				ids = append(ids, d.ID)
			}
			if strings.Join(ids, ",") != strings.Join(tt.wantIDs, ",") {
				t.Errorf("ids %v, want %v", ids, tt.wantIDs)
			}
			if (page.Next == nil) != (tt.wantNext == nil) || (page.Next != nil && *page.Next != *tt.wantNext) {
				t.Errorf("next %+v, want %+v", page.Next, tt.wantNext)
			}
		})
	}
}

func TestDeliveryDetailsHidesWhatTheLogDoesNotShow(t *testing.T) {
	w := newLogWorld()
	h := NewDeliveryDetailsHandler(w, w)
	for _, id := range []string{"d-theirs", "d-account", "d-none"} {
		if _, err := h.Handle(context.Background(), DeliveryDetails{Caller: owner, DeliveryID: id}); !errors.Is(err, domain.ErrNotFound) {
			t.Errorf("%s: err = %v, want not found", id, err)
		}
	}
}

// A submission's delivery is queued by the submission's own
// submission.accepted, so its history starts with that event; a delivery
// queued by a delivery.queued of its own (a verification mail, or a
// submission's delivery from before the fold) shows only its stream.
func TestDeliveryDetailsStartWithTheEventThatQueuedTheDelivery(t *testing.T) {
	accepted := HistoryEntry{Type: submission.AcceptedType, Version: 1, Metadata: Metadata{Actor: Actor{Type: ActorSubmitter, ID: "ip_x"}}}
	failed := HistoryEntry{Type: delivery.GaveUpType, Version: 2}
	queued := HistoryEntry{Type: delivery.QueuedType, Version: 1}
	w := newLogWorld()
	w.streams = map[string][]HistoryEntry{"s-1": {accepted, {Type: submission.RedactedType, Version: 2}}, "d-failed": {failed},
		"d-succeeded": {queued, {Type: delivery.SucceededType, Version: 2}}, "d-recipient": {queued, failed}}
	h := NewDeliveryDetailsHandler(w, w)
	for id, want := range map[string][]string{
		"d-failed":    {submission.AcceptedType, delivery.GaveUpType},
		"d-shredded":  {submission.AcceptedType},
		"d-succeeded": {delivery.QueuedType, delivery.SucceededType},
		"d-recipient": {delivery.QueuedType, delivery.GaveUpType},
	} {
		d, err := h.Handle(context.Background(), DeliveryDetails{Caller: owner, DeliveryID: id})
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		var got []string
		for _, e := range d.Events {
			got = append(got, e.Type)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: history %v, want %v", id, got, want)
		}
	}
}
