package application

import (
	"context"
	"encoding/hex"
	"errors"
	"strings"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/verification"
)

// accessKeyPrefixLength is how much of an access key stays visible after creation.
const accessKeyPrefixLength = 8

// CreateForm is POST /v1/forms.
type CreateForm struct {
	Caller        Session
	RequestID     string
	WorkspaceID   string
	WorkspaceName string
	Settings      form.Settings
}

// FormCreated carries the access key, shown only this once.
type FormCreated struct {
	Form      FormRecord
	AccessKey string
}

// FormsHandler creates and changes forms.
type FormsHandler struct {
	tx     Transactor
	read   ReadModel
	ent    Entitlements
	ids    IDs
	clock  Clock
	tokens LinkTokens
}

// NewFormsHandler builds the handler.
func NewFormsHandler(tx Transactor, read ReadModel, ent Entitlements, ids IDs, clock Clock, tokens LinkTokens) *FormsHandler {
	if tx == nil || read == nil || ent == nil || ids == nil || clock == nil || tokens == nil {
		panic("application: nil dependency of FormsHandler")
	}
	return &FormsHandler{tx: tx, read: read, ent: ent, ids: ids, clock: clock, tokens: tokens}
}

func (h *FormsHandler) policy(ctx context.Context, accountID string) (form.Policy, error) {
	wild, err := h.ent.Has(ctx, accountID, account.FeatureWildcardDomains)
	return form.Policy{WildcardDomains: wild}, err
}

func metadataFor(s Session, requestID string) Metadata {
	return Metadata{Actor: Actor{Type: s.ActorType, ID: s.CredentialID}, AccountID: s.AccountID, RequestID: requestID}
}

// Create creates a form and queues its recipient verification email.
func (h *FormsHandler) Create(ctx context.Context, cmd CreateForm) (FormCreated, error) {
	policy, err := h.policy(ctx, cmd.Caller.AccountID)
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
		switch {
		case cmd.WorkspaceID != "":
			if !a.HasWorkspace(cmd.WorkspaceID) {
				return domain.Invalid("workspaceId", "workspaceId is not a workspace of this account")
			}
			workspace = cmd.WorkspaceID
		case strings.TrimSpace(cmd.WorkspaceName) != "":
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
		return requestVerification(ctx, tx, h.ids, h.tokens, verification.KindRecipient, formID, a.ID(), f.Settings().RecipientEmail, now)
	})
	if err != nil {
		return FormCreated{}, err
	}
	rec, err := h.read.FormByID(ctx, formID)
	return FormCreated{Form: rec, AccessKey: accessKey}, err
}

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

// UpdateForm is PATCH /v1/forms/{formId}.
type UpdateForm struct {
	Caller    Session
	RequestID string
	FormID    string
	Patch     form.Patch
}

// owned returns the form when it belongs to the caller; anything else is not found.
func (h *FormsHandler) owned(ctx context.Context, caller Session, formID string) (FormRecord, error) {
	rec, err := h.read.FormByID(ctx, formID)
	if err != nil {
		return FormRecord{}, err
	}
	if rec.AccountID != caller.AccountID {
		return FormRecord{}, domain.ErrNotFound
	}
	return rec, nil
}

// Update changes a form's settings; a new recipient gets a new verification email.
func (h *FormsHandler) Update(ctx context.Context, cmd UpdateForm) (FormRecord, error) {
	if _, err := h.owned(ctx, cmd.Caller, cmd.FormID); err != nil {
		return FormRecord{}, err
	}
	policy, err := h.policy(ctx, cmd.Caller.AccountID)
	if err != nil {
		return FormRecord{}, err
	}
	now := h.clock.Now()
	err = h.tx.InTx(ctx, metadataFor(cmd.Caller, cmd.RequestID), func(tx Tx) error {
		f, err := tx.LoadForm(ctx, cmd.FormID)
		if err != nil {
			return err
		}
		before := f.Settings().RecipientEmail
		if err := f.ChangeSettings(cmd.Patch, policy, now); err != nil {
			return err
		}
		if err := tx.SaveForm(ctx, f); err != nil {
			return err
		}
		if after := f.Settings().RecipientEmail; after != before {
			return requestVerification(ctx, tx, h.ids, h.tokens, verification.KindRecipient, f.ID(), f.AccountID(), after, now)
		}
		return nil
	})
	if err != nil {
		return FormRecord{}, err
	}
	return h.read.FormByID(ctx, cmd.FormID)
}

// ResendRecipientVerification is POST /v1/forms/{formId}/recipient-verifications.
func (h *FormsHandler) ResendRecipientVerification(ctx context.Context, caller Session, requestID, formID string) (VerificationRecord, error) {
	rec, err := h.owned(ctx, caller, formID)
	if err != nil {
		return VerificationRecord{}, err
	}
	if rec.RecipientVerified {
		return h.read.LatestVerification(ctx, verification.KindRecipient, formID)
	}
	now := h.clock.Now()
	err = h.tx.InTx(ctx, metadataFor(caller, requestID), func(tx Tx) error {
		return requestVerification(ctx, tx, h.ids, h.tokens, verification.KindRecipient, formID, caller.AccountID, rec.Settings.RecipientEmail, now)
	})
	if err != nil {
		return VerificationRecord{}, err
	}
	return h.read.LatestVerification(ctx, verification.KindRecipient, formID)
}

// RecipientVerification is GET /v1/forms/{formId}/recipient-verification.
func (h *FormsHandler) RecipientVerification(ctx context.Context, caller Session, formID string) (VerificationRecord, FormRecord, error) {
	rec, err := h.owned(ctx, caller, formID)
	if err != nil {
		return VerificationRecord{}, rec, err
	}
	v, err := h.read.LatestVerification(ctx, verification.KindRecipient, formID)
	if errors.Is(err, domain.ErrNotFound) {
		v, err = VerificationRecord{SubjectID: formID, Email: rec.Settings.RecipientEmail, Status: verification.StatusPending}, nil
	}
	if rec.RecipientVerified {
		v.Status = verification.StatusVerified
	} else {
		v.Status = verification.StatusPending
	}
	return v, rec, err
}

// List is GET /v1/forms: the caller's forms only.
func (h *FormsHandler) List(ctx context.Context, caller Session) ([]FormRecord, error) {
	return h.read.FormsByAccount(ctx, caller.AccountID)
}

// History is GET /v1/forms/{formId}/events: the form's audit trail in order.
func (h *FormsHandler) History(ctx context.Context, caller Session, formID string) ([]HistoryEntry, error) {
	if _, err := h.owned(ctx, caller, formID); err != nil {
		return nil, err
	}
	return h.read.StreamHistory(ctx, formID)
}
