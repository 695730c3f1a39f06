package application

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
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
			NewSubmitHandler(nil, nil, nil, nil, nil, nil, nil, nil, nil, testQuotas, nil, nil, nil, nil, nil, nil, nil, nil)
		},
		"UploadIntake": func() { NewUploadIntake(nil, nil, nil, nil, nil, nil, UploadSettings{}) },
		"Captchas":     func() { NewCaptchaChecks(nil, nil, nil, nil, nil, nil, nil) },
		"SpamChecks":   func() { NewSpamChecks(nil, nil, nil) },
		"SpamLink":     func() { NewSpamLinkHandler(nil, nil, nil) },
		"MarkSpam":     func() { NewMarkSpamHandler(nil, nil, nil, nil, nil, nil, nil, nil) },
		"Challenge":    func() { NewIssueChallengeHandler(nil, nil) },
		"GrantFeature": func() { NewGrantFeatureHandler(nil, nil, nil) },
		"RevokeFeat":   func() { NewRevokeFeatureHandler(nil, nil, nil, nil) },
		"SetPlan":      func() { NewSetPlanHandler(nil, nil, nil) },
		"AccountView":  func() { NewAccountOverviewHandler(nil, nil, testQuotas) },
		"AccountHist":  func() { NewAccountHistoryHandler(nil, nil) },
		"Poisoned":     func() { NewRecordPoisonedMessageHandler(nil) },
		"QueueDeliver": func() { NewQueueDeliveryHandler(nil) },
		"Deliver": func() {
			NewDeliverHandler(nil, nil, nil, nil, nil, nil, nil, nil, MailSettings{}, nil, nil, nil, nil, nil, nil, nil)
		},
		"Authenticate": func() { NewAuthenticateHandler(nil, nil, nil) },
		"Workspaces":   func() { NewListWorkspacesHandler(nil) },
		"Tokens":       func() { NewListWorkspaceTokensHandler(nil, nil) },
		"CreateToken":  func() { NewCreateWorkspaceTokenHandler(nil, nil, nil, nil) },
		"RevokeToken":  func() { NewRevokeWorkspaceTokenHandler(nil, nil) },
		"ListForms":    func() { NewListFormsHandler(nil) },
		"FormHistory":  func() { NewFormHistoryHandler(nil, nil) },
		"FormVersion":  func() { NewFormVersionHandler(nil, nil) },
		"CompareVers":  func() { NewCompareFormVersionsHandler(nil) },
		"RestoreVers":  func() { NewRestoreFormVersionHandler(nil, nil, nil, nil, nil, nil) },
		"PreviewTmpl":  func() { NewPreviewTemplatesHandler(nil, nil, nil) },
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
		"EraseSubs":    func() { NewEraseSubmissionsHandler(nil, nil, nil, nil, nil) },
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

// accountStore is the in-memory unit of work holding one account's stream.
func accountStore(t *testing.T, events ...account.Event) *MemoryTransactor {
	t.Helper()
	acc, err := account.FromHistory(events)
	if err != nil {
		t.Fatal(err)
	}
	m := NewMemoryTransactor()
	m.Seed(acc.ID(), anys(events)...)
	return m
}

// savedAccountEvents are the account events commands committed.
func savedAccountEvents(m *MemoryTransactor) []account.Event {
	var out []account.Event
	for _, r := range m.Events() {
		if e, ok := r.Event.(account.Event); ok && r.StreamType == "account" {
			out = append(out, e)
		}
	}
	return out
}

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
	tx := accountStore(t, account.Registered{AccountID: "acct-1", Email: "ada@example.com", WorkspaceID: "ws-1"})
	h := NewGrantFeatureHandler(tx, oneAccount{rec: AccountRecord{ID: "acct-1"}, by: "ada@example.com"}, fixedClock{})
	if err := h.Handle(context.Background(), GrantFeature{Email: "ada@example.com", Feature: account.FeatureCC, Operator: "root"}); err != nil {
		t.Fatal(err)
	}
	want := []account.Event{account.FeatureGranted{Feature: account.FeatureCC, At: fixedClock{}.Now()}}
	if !reflect.DeepEqual(savedAccountEvents(tx), want) {
		t.Errorf("saved %+v, want %+v", savedAccountEvents(tx), want)
	}
	if tx.Metadata().Actor != (Actor{Type: ActorOperator, ID: "root"}) || tx.Metadata().AccountID != "acct-1" {
		t.Errorf("metadata %+v, want the operator acting on acct-1", tx.Metadata())
	}
	err := h.Handle(context.Background(), GrantFeature{Email: "nobody@example.com", Feature: account.FeatureCC, Operator: "root"})
	if !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("an unknown email: %v, want ErrNotFound", err)
	}
}
