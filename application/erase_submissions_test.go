package application

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
)

// eraseFakes are the erasure's ports: one form of account acc-1, and an
// eraser holding archived submissions by hash, with pending ones apart.
type eraseFakes struct {
	lookups  int
	archived map[string]int // email hash → archived submissions ready to erase
	pending  map[string]int
	batches  []int
	audited  int
	oneState error
}

func (f *eraseFakes) FormByID(_ context.Context, id string) (FormRecord, error) {
	f.lookups++
	if id != "form-1" {
		return FormRecord{}, domain.ErrNotFound
	}
	return FormRecord{ID: id, AccountID: "acc-1", WorkspaceID: "ws-1"}, nil
}

func (f *eraseFakes) EraseArchivedSubmission(context.Context, string, string, time.Time) error {
	return f.oneState
}

func (f *eraseFakes) EraseArchivedByValueHash(_ context.Context, _, _ string, hashes []string, limit int, _ time.Time) (int, error) {
	n := 0
	for _, h := range hashes {
		take := min(f.archived[h], limit-n)
		f.archived[h] -= take
		n += take
	}
	f.batches = append(f.batches, n)
	return n, nil
}

func (f *eraseFakes) PendingArchivedByValueHash(_ context.Context, _, _ string, hashes []string) (int, error) {
	n := 0
	for _, h := range hashes {
		n += f.pending[h]
	}
	return n, nil
}

// HashValueUnderEveryKey hashes under a current key and one old key.
func (f *eraseFakes) HashValueUnderEveryKey(_, _, value string) []string {
	return []string{"new:" + value, "old:" + value}
}

func (f *eraseFakes) InTx(context.Context, Metadata, func(tx Tx) error) error {
	f.audited++
	return nil
}

func newEraseHandler(f *eraseFakes) *EraseSubmissionsHandler {
	return NewEraseSubmissionsHandler(f, f, f, f, fixedClock{})
}

var eraser = Session{AccountID: "acc-1", Access: account.TokenAccess("ws-1", []account.Scope{account.ScopeSubmissionsDelete})}

func TestEraseByEmailFindsTheAddressAsGivenAndLowerCasedUnderEveryKeyInBatches(t *testing.T) {
	f := &eraseFakes{archived: map[string]int{
		"new:Ada@Example.com": 1, "old:Ada@Example.com": 2, "new:ada@example.com": EraseBatch, "old:ada@example.com": 3,
		"new:other@example.com": 4,
	}, pending: map[string]int{"new:ada@example.com": 2}}
	got, err := newEraseHandler(f).EraseByEmail(context.Background(), EraseSubmitter{Caller: eraser, FormID: "form-1", Email: " Ada@Example.com "})
	if err != nil {
		t.Fatal(err)
	}
	if want := (Erasure{Erased: EraseBatch + 6, Pending: 2}); got != want {
		t.Errorf("EraseByEmail = %+v, want %+v", got, want)
	}
	if !slices.Equal(f.batches, []int{EraseBatch, 6}) {
		t.Errorf("batches %v, want a full one then the rest", f.batches)
	}
	if f.archived["new:other@example.com"] != 4 || f.audited != 1 {
		t.Errorf("another address's submissions erased, or the erasure not audited once: %+v", f)
	}
}

func TestEraseRefusesBeforeLookingAnythingUp(t *testing.T) {
	f := &eraseFakes{}
	h := newEraseHandler(f)
	reader := Session{AccountID: "acc-1", Access: account.TokenAccess("ws-1", []account.Scope{account.ScopeFormsRead, account.ScopeFormsWrite})}
	var denied *domain.PermissionDeniedError
	if _, err := h.EraseOne(context.Background(), EraseSubmission{Caller: reader, FormID: "form-1", SubmissionID: "s"}); !errors.As(err, &denied) {
		t.Errorf("EraseOne without submissions:delete = %v, want a permission refusal", err)
	}
	if _, err := h.EraseByEmail(context.Background(), EraseSubmitter{Caller: reader, FormID: "form-1", Email: "a@example.com"}); !errors.As(err, &denied) {
		t.Errorf("EraseByEmail without submissions:delete = %v, want a permission refusal", err)
	}
	var invalid *domain.InvalidInputError
	if _, err := h.EraseByEmail(context.Background(), EraseSubmitter{Caller: eraser, FormID: "form-1", Email: "nobody"}); !errors.As(err, &invalid) || invalid.Field != "email" {
		t.Errorf("EraseByEmail of a non-address = %v, want a refusal naming email", err)
	}
	if f.lookups != 0 || f.audited != 0 {
		t.Errorf("a refused erasure looked up %d forms and audited %d times", f.lookups, f.audited)
	}
}

func TestEraseOneWhileDeliveriesArePendingIsRefusedWithAReason(t *testing.T) {
	f := &eraseFakes{oneState: ErrDeliveriesPending}
	_, err := newEraseHandler(f).EraseOne(context.Background(), EraseSubmission{Caller: eraser, FormID: "form-1", SubmissionID: "s"})
	var forbidden *domain.ForbiddenError
	if !errors.As(err, &forbidden) || f.audited != 0 {
		t.Errorf("EraseOne with deliveries pending = %v (audited %d), want a refusal and no audit", err, f.audited)
	}
	f.oneState = domain.ErrNotFound
	if _, err := newEraseHandler(f).EraseOne(context.Background(), EraseSubmission{Caller: eraser, FormID: "form-1", SubmissionID: "s"}); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("EraseOne of no archived submission = %v, want not found", err)
	}
	f.oneState = nil
	got, err := newEraseHandler(f).EraseOne(context.Background(), EraseSubmission{Caller: eraser, FormID: "form-1", SubmissionID: "s"})
	if err != nil || got.Erased != 1 || f.audited != 1 {
		t.Errorf("EraseOne = %+v, %v (audited %d), want 1 erased and audited", got, err, f.audited)
	}
}
