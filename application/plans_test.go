package application

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
)

func adaOnStream(t *testing.T, more ...account.Event) *MemoryTransactor {
	t.Helper()
	return accountStore(t, append([]account.Event{account.Registered{AccountID: "acct-1", Email: "ada@example.com", WorkspaceID: "ws-1"}}, more...)...)
}

var ada = oneAccount{rec: AccountRecord{ID: "acct-1"}, by: "ada@example.com"}

func TestSetPlanRecordsTheChangeWithTheOperatorAsActor(t *testing.T) {
	tx := adaOnStream(t)
	h := NewSetPlanHandler(tx, ada, fixedClock{})
	if err := h.Handle(context.Background(), SetPlan{Email: " Ada@Example.com ", Plan: "Pro", Operator: "root"}); err != nil {
		t.Fatal(err)
	}
	want := []account.Event{account.PlanChanged{Plan: account.PlanPro, Previous: account.PlanFree, At: fixedClock{}.Now()}}
	if !reflect.DeepEqual(savedAccountEvents(tx), want) {
		t.Errorf("saved %+v, want %+v", savedAccountEvents(tx), want)
	}
	if tx.Metadata().Actor != (Actor{Type: ActorOperator, ID: "root"}) || tx.Metadata().AccountID != "acct-1" {
		t.Errorf("metadata %+v, want the operator acting on acct-1", tx.Metadata())
	}
	var invalid *domain.InvalidInputError
	if err := h.Handle(context.Background(), SetPlan{Email: "ada@example.com", Plan: "gold", Operator: "root"}); !errors.As(err, &invalid) {
		t.Errorf("an unknown plan: %v, want an InvalidInputError", err)
	}
	if err := h.Handle(context.Background(), SetPlan{Email: "bob@example.com", Plan: "pro", Operator: "root"}); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("an unknown email: %v, want ErrNotFound", err)
	}
}

// grantsOf is an AccountPlans whose read model holds grants.
type grantsOf []string

func (g grantsOf) AccountPlan(context.Context, string) (AccountPlanRecord, error) {
	return AccountPlanRecord{AccountRecord: AccountRecord{ID: "acct-1", Email: "ada@example.com"}, Plan: account.PlanPro, Grants: g}, nil
}

func (g grantsOf) PlanUsage(context.Context, string, account.Month) (account.Plan, int, error) {
	return account.PlanPro, 42, nil
}

func TestRevokeFeature(t *testing.T) {
	for _, tt := range []struct {
		name    string
		stream  []account.Event
		read    grantsOf
		wantErr bool
	}{
		{name: "a grant on the stream", stream: []account.Event{account.FeatureGranted{Feature: account.FeatureCC}}, read: grantsOf{account.FeatureCC}},
		{name: "a grant made before grants were events", read: grantsOf{account.FeatureCC}},
		{name: "no grant", wantErr: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tx := adaOnStream(t, tt.stream...)
			err := NewRevokeFeatureHandler(tx, ada, tt.read, fixedClock{}).Handle(context.Background(),
				RevokeFeature{Email: "ada@example.com", Feature: account.FeatureCC, Operator: "root"})
			if tt.wantErr {
				var invalid *domain.InvalidInputError
				if !errors.As(err, &invalid) || len(savedAccountEvents(tx)) != 0 {
					t.Fatalf("err %v, saved %+v; want a refusal and nothing saved", err, savedAccountEvents(tx))
				}
				return
			}
			want := []account.Event{account.FeatureRevoked{Feature: account.FeatureCC, At: fixedClock{}.Now()}}
			if err != nil || !reflect.DeepEqual(savedAccountEvents(tx), want) || tx.Metadata().Actor != (Actor{Type: ActorOperator, ID: "root"}) {
				t.Fatalf("err %v, saved %+v, md %+v", err, savedAccountEvents(tx), tx.Metadata())
			}
		})
	}
}

func TestAccountOverviewShowsPlanEntitlementsAndUsage(t *testing.T) {
	got, err := NewAccountOverviewHandler(grantsOf{account.FeatureCC}, fixedClock{}, testQuotas).Handle(context.Background(),
		AccountOverview{Caller: Session{AccountID: "acct-1", Access: account.FullAccess()}})
	if err != nil {
		t.Fatal(err)
	}
	if got.Email != "ada@example.com" || got.Plan != account.PlanPro ||
		!reflect.DeepEqual(got.Entitlements, []string{account.FeatureWildcardDomains, account.FeatureCC}) ||
		!reflect.DeepEqual(got.Grants, []string{account.FeatureCC}) {
		t.Fatalf("summary %+v", got)
	}
	if u := got.Usage; u.Plan != account.PlanPro || u.Quota != 50000 || u.Used != 42 || u.Month.String() != "2026-11" {
		t.Fatalf("usage %+v, want pro's 42 of 50000 in 2026-11", u)
	}
}

// The account is above any workspace: a workspace token reads neither its
// overview nor its audit trail.
func TestATokenDoesNotReadTheAccount(t *testing.T) {
	token := Session{AccountID: "acct-1", Access: account.TokenAccess("ws-1", []account.Scope{account.ScopeFormsRead, account.ScopeFormsWrite})}
	if _, err := NewAccountOverviewHandler(grantsOf{}, fixedClock{}, testQuotas).Handle(context.Background(),
		AccountOverview{Caller: token}); !errors.Is(err, account.ErrTokensSeeNoAccount) {
		t.Errorf("overview with a token: %v, want ErrTokensSeeNoAccount", err)
	}
	if _, err := NewAccountHistoryHandler(newIntegrationWorld(t), noActorNames{}).Handle(context.Background(), AccountHistory{Caller: token}); !errors.Is(err, account.ErrTokensSeeNoAccount) {
		t.Errorf("history with a token: %v, want ErrTokensSeeNoAccount", err)
	}
}
