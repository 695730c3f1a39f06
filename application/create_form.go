package application

import (
	"context"
	"encoding/hex"
	"strings"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/form"
)

// accessKeyPrefixLength is how much of an access key stays visible after creation.
const accessKeyPrefixLength = 8

// CreateForm is POST /v1/forms.
type CreateForm struct {
	Caller    Session
	RequestID string
	// Language is the catalog language of the request (its Accept-Language
	// matched by Messages.Language), for the words of the verification
	// mails it causes; blank is English.
	Language      string
	WorkspaceID   string
	WorkspaceName string
	Settings      form.Settings
}

// FormCreated carries the access key, shown only this once.
type FormCreated struct {
	Form      FormRecord
	AccessKey string
}

// CreateFormHandler creates a form and queues its recipient verification.
type CreateFormHandler struct {
	tx     Transactor
	read   FormReader
	ent    Entitlements
	ids    IDs
	clock  Clock
	tokens LinkTokens
}

// NewCreateFormHandler builds the handler; every dependency is required.
func NewCreateFormHandler(tx Transactor, read FormReader, ent Entitlements, ids IDs, clock Clock, tokens LinkTokens) *CreateFormHandler {
	if tx == nil || read == nil || ent == nil || ids == nil || clock == nil || tokens == nil {
		panic("application: nil dependency of CreateFormHandler")
	}
	return &CreateFormHandler{tx: tx, read: read, ent: ent, ids: ids, clock: clock, tokens: tokens}
}

// Handle creates the form (in a new workspace when one is named) and queues
// the recipient verification email, unless the throttle on verification
// mails refuses it: the form is created either way, its recipient pending.
func (h *CreateFormHandler) Handle(ctx context.Context, cmd CreateForm) (FormCreated, error) {
	if err := cmd.Caller.Require(account.ScopeFormsWrite); err != nil {
		return FormCreated{}, err
	}
	policy, err := formPolicy(ctx, h.ent, cmd.Caller.AccountID)
	if err != nil {
		return FormCreated{}, err
	}
	accessKey := newAccessKey()
	formID := h.ids.New()
	now := h.clock.Now()
	err = h.tx.InTx(ctx, metadataFor(cmd.Caller, cmd.RequestID), func(tx Tx) error {
		a, err := tx.LoadAccount(ctx, cmd.Caller.AccountID)
		if err != nil {
			return err
		}
		if err := a.CanCreateForms(); err != nil {
			return err
		}
		workspace := a.DefaultWorkspaceID()
		wantID, wantName := cmd.WorkspaceID, strings.TrimSpace(cmd.WorkspaceName)
		if own, bound := cmd.Caller.Access.Workspace(); bound {
			// A workspace token creates forms in its own workspace only.
			if (wantID != "" && wantID != own) || wantName != "" {
				return errTokenWorkspaceOnly
			}
			wantID = own
		}
		switch {
		case wantID != "":
			if !a.HasWorkspace(wantID) {
				return domain.Invalid("workspaceId", "workspaceId is not a workspace of this account")
			}
			workspace = wantID
		case wantName != "":
			workspace = h.ids.New()
			if err := a.AddWorkspace(workspace, cmd.WorkspaceName, now); err != nil {
				return err
			}
			if err := tx.SaveAccount(ctx, a); err != nil {
				return err
			}
		}
		f, err := form.Create(form.NewForm{
			ID: formID, AccountID: a.ID(), WorkspaceID: workspace,
			AccessKeyHash: hex.EncodeToString(HashSecret(accessKey)), AccessKeyPrefix: accessKey[:accessKeyPrefixLength],
			Settings: cmd.Settings,
		}, policy, now)
		if err != nil {
			return err
		}
		if err := tx.SaveForm(ctx, f); err != nil {
			return err
		}
		if err := mailUnlessThrottled(requestRecipientVerification(ctx, tx, h.ids, h.tokens, formID, a.ID(), f.Settings().RecipientEmail, cmd.Language, now)); err != nil {
			return err
		}
		return verifyAddedRoutes(ctx, tx, h.ids, h.tokens, f, nil, cmd.Language, now)
	})
	if err != nil {
		return FormCreated{}, err
	}
	rec, err := h.read.FormByID(ctx, formID)
	return FormCreated{Form: rec, AccessKey: accessKey}, err
}

// errTokenWorkspaceOnly refuses a workspace token's form in another
// workspace, or in a new one: a token reaches its own workspace only.
var errTokenWorkspaceOnly = &domain.PermissionDeniedError{
	Message: "A workspace API token creates forms in its own workspace only: leave out workspaceName, and workspaceId or give the token's own."}

// newAccessKey is a random UUID-shaped public routing key, the shape form
// snippets of other services already carry.
func newAccessKey() string {
	s := NewSecret("")
	b := HashSecret(s)[:16]
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	x := hex.EncodeToString(b)
	return x[:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:]
}
