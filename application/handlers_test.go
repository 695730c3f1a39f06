package application

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/verification"
)

// Every constructor refuses a missing dependency at once: wire calls them at
// start, so a wiring mistake stops formd before it serves anything.
func TestConstructorsRefuseNilDependencies(t *testing.T) {
	constructors := map[string]func(){
		"Register":     func() { NewRegisterHandler(nil, nil, nil, nil, nil, nil) },
		"VerifyLink":   func() { NewVerifyLinkHandler(nil, nil, nil, nil) },
		"ResetRequest": func() { NewRequestPasswordResetHandler(nil, nil, nil, nil, nil, nil) },
		"ResetPasswd":  func() { NewResetPasswordHandler(nil, nil, nil, nil, nil) },
		"LinkView":     func() { NewVerificationLinkHandler(nil, nil, nil) },
		"CreateForm":   func() { NewCreateFormHandler(nil, nil, nil, nil, nil, nil) },
		"UpdateForm":   func() { NewUpdateFormHandler(nil, nil, nil, nil, nil, nil, nil) },
		"Resend":       func() { NewResendRecipientVerificationHandler(nil, nil, nil, nil, nil) },
		"Submit": func() {
			NewSubmitHandler(nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, testQuotas, nil, nil, nil, nil, nil, nil)
		},
		"UploadIntake": func() { NewUploadIntake(nil, nil, nil, nil, nil, nil, UploadSettings{}) },
		"Captchas":     func() { NewCaptchaChecks(nil, nil, nil, nil, nil, nil, nil) },
		"Challenge":    func() { NewIssueChallengeHandler(nil, nil) },
		"GrantFeature": func() { NewGrantFeatureHandler(nil, nil, nil) },
		"RevokeFeat":   func() { NewRevokeFeatureHandler(nil, nil, nil, nil) },
		"SetPlan":      func() { NewSetPlanHandler(nil, nil, nil) },
		"AccountView":  func() { NewAccountOverviewHandler(nil, nil, testQuotas) },
		"AccountHist":  func() { NewAccountHistoryHandler(nil) },
		"Poisoned":     func() { NewRecordPoisonedMessageHandler(nil) },
		"QueueDeliver": func() { NewQueueDeliveryHandler(nil) },
		"Deliver":      func() { NewDeliverHandler(nil, nil, nil, nil, nil, nil, nil, nil, MailSettings{}, nil, nil, nil, nil) },
		"Authenticate": func() { NewAuthenticateHandler(nil, nil, nil) },
		"Workspaces":   func() { NewListWorkspacesHandler(nil) },
		"Tokens":       func() { NewListWorkspaceTokensHandler(nil, nil) },
		"CreateToken":  func() { NewCreateWorkspaceTokenHandler(nil, nil, nil, nil) },
		"RevokeToken":  func() { NewRevokeWorkspaceTokenHandler(nil, nil) },
		"ListForms":    func() { NewListFormsHandler(nil) },
		"FormHistory":  func() { NewFormHistoryHandler(nil) },
		"RecipientVer": func() { NewRecipientVerificationHandler(nil) },
		"Configure":    func() { NewConfigureIntegrationHandler(nil, nil, nil, nil, nil, nil, nil, nil, nil) },
		"SheetProofs":  func() { NewSheetProofs(nil, nil, nil, nil, nil) },
		"Rotate":       func() { NewRotateWebhookSecretHandler(nil, nil, nil, nil, nil) },
		"Integrations": func() { NewListIntegrationsHandler(nil) },
		"SigningSecrs": func() { NewWebhookSigningSecretsHandler(nil, nil, nil) },
		"SignIn":       func() { NewSignInHandler(nil, nil, nil, nil) },
		"SignOut":      func() { NewSignOutHandler(nil, nil) },
		"CSRF":         func() { NewRequestForgeryTokenHandler(nil) },
		"FormCounts":   func() { NewFormSubmissionCountsHandler(nil, nil) },
	}
	for name, build := range constructors {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("New%sHandler accepted nil dependencies", name)
				}
			}()
			build()
		})
	}
}

// memTx is a unit of work over one account, recording what was saved and
// with which metadata.
type memTx struct {
	acc   *account.Account
	md    Metadata
	saved []account.Event
}

func (m *memTx) InTx(_ context.Context, md Metadata, fn func(Tx) error) error {
	m.md = md
	return fn(m)
}
func (m *memTx) LoadForm(context.Context, string) (*form.Form, error) { return nil, domain.ErrNotFound }
func (m *memTx) SaveForm(context.Context, *form.Form) error           { return errors.New("unexpected") }
func (m *memTx) LoadAccount(_ context.Context, id string) (*account.Account, error) {
	if m.acc == nil || m.acc.ID() != id {
		return nil, domain.ErrNotFound
	}
	return m.acc, nil
}
func (m *memTx) SaveAccount(_ context.Context, a *account.Account) error {
	m.saved = append(m.saved, a.Changes()...)
	return nil
}
func (m *memTx) LoadVerification(context.Context, string) (*verification.Verification, error) {
	return nil, domain.ErrNotFound
}
func (m *memTx) SaveVerification(context.Context, *verification.Verification) error {
	return errors.New("unexpected")
}
func (m *memTx) QueueDelivery(context.Context, delivery.Queued) error {
	return errors.New("unexpected")
}
func (m *memTx) CreateSession(context.Context, []byte, string, time.Time) error {
	return errors.New("unexpected")
}
func (m *memTx) EndSessions(context.Context, string) error { return errors.New("unexpected") }
func (m *memTx) EndSession(context.Context, []byte) error  { return errors.New("unexpected") }
func (m *memTx) StoreWebhookSecret(context.Context, StoredWebhookSecret, time.Time) error {
	return errors.New("unexpected")
}
func (m *memTx) StoreCaptchaSecret(context.Context, StoredCaptchaSecret) error {
	return errors.New("unexpected")
}
func (m *memTx) DeleteCaptchaSecret(context.Context, string) error { return errors.New("unexpected") }

// oneAccount is a read model that knows one account by email.
type oneAccount struct {
	ReadModel
	rec AccountRecord
	by  string
}

func (o oneAccount) AccountByEmail(_ context.Context, email string) (AccountRecord, error) {
	if email != o.by {
		return AccountRecord{}, domain.ErrNotFound
	}
	return o.rec, nil
}

func TestGrantFeatureRecordsTheGrantWithTheOperatorAsActor(t *testing.T) {
	acc, err := account.FromHistory([]account.Event{account.Registered{AccountID: "acct-1", Email: "ada@example.com", WorkspaceID: "ws-1"}})
	if err != nil {
		t.Fatal(err)
	}
	tx := &memTx{acc: acc}
	h := NewGrantFeatureHandler(tx, oneAccount{rec: AccountRecord{ID: "acct-1"}, by: "ada@example.com"}, fixedClock{})
	if err := h.Handle(context.Background(), GrantFeature{Email: "ada@example.com", Feature: account.FeatureCC, Operator: "root"}); err != nil {
		t.Fatal(err)
	}
	want := []account.Event{account.FeatureGranted{Feature: account.FeatureCC, At: fixedClock{}.Now()}}
	if !reflect.DeepEqual(tx.saved, want) {
		t.Errorf("saved %+v, want %+v", tx.saved, want)
	}
	if tx.md.Actor != (Actor{Type: ActorOperator, ID: "root"}) || tx.md.AccountID != "acct-1" {
		t.Errorf("metadata %+v, want the operator acting on acct-1", tx.md)
	}
	err = h.Handle(context.Background(), GrantFeature{Email: "nobody@example.com", Feature: account.FeatureCC, Operator: "root"})
	if !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("an unknown email: %v, want ErrNotFound", err)
	}
}

func (m *memTx) RecentVerificationRequests(context.Context, verification.Kind, string, string, string, time.Time) (verification.RecentRequests, error) {
	return verification.RecentRequests{}, nil
}

func (m *memTx) PasswordResetRequests(context.Context, string, time.Time) ([]time.Time, error) {
	return nil, nil
}
func (m *memTx) RecordPasswordResetRequest(context.Context, string, time.Time) error {
	return errors.New("unexpected")
}
