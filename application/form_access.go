package application

import (
	"context"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/form"
)

// ownedForm returns the form when it belongs to the caller; a form of anyone
// else, or of a workspace the caller's token is not for, is not found, so its
// existence is not revealed.
func ownedForm(ctx context.Context, read FormReader, caller Session, formID string) (FormRecord, error) {
	rec, err := read.FormByID(ctx, formID)
	if err != nil {
		return FormRecord{}, err
	}
	if rec.AccountID != caller.AccountID || !caller.Access.Sees(rec.WorkspaceID) {
		return FormRecord{}, domain.ErrNotFound
	}
	return rec, nil
}

// ownedFormHistory is the caller's form's events, oldest first, once the
// caller's scope and the form's ownership are checked.
func ownedFormHistory(ctx context.Context, read FormHistoryReader, caller Session, scope account.Scope, formID string) ([]HistoryEntry, error) {
	if err := caller.Require(scope); err != nil {
		return nil, err
	}
	if _, err := ownedForm(ctx, read, caller, formID); err != nil {
		return nil, err
	}
	return read.StreamHistory(ctx, formID)
}

// formPolicy is what the account's entitlements and plan allow in form
// settings.
func formPolicy(ctx context.Context, ent Entitlements, accountID string) (form.Policy, error) {
	wild, err := ent.Has(ctx, accountID, account.FeatureWildcardDomains)
	if err != nil {
		return form.Policy{}, err
	}
	uploads, err := ent.Has(ctx, accountID, account.FeatureUploads)
	if err != nil {
		return form.Policy{}, err
	}
	plan, err := ent.PlanOf(ctx, accountID)
	return form.Policy{WildcardDomains: wild, Uploads: uploads, MaxArchiveRetentionDays: plan.ArchiveRetentionDays()}, err
}

// heldEntitlements looks up which of features the account holds, for a
// domain rule that may consult them (a feature not looked up counts as not
// held).
func heldEntitlements(ctx context.Context, ent Entitlements, accountID string, features ...string) (account.Entitlements, error) {
	var granted []string
	for _, feature := range features {
		ok, err := ent.Has(ctx, accountID, feature)
		if err != nil {
			return account.Entitlements{}, err
		}
		if ok {
			granted = append(granted, feature)
		}
	}
	return account.NewEntitlements(granted...), nil
}

// metadataFor is the audit metadata of a control-plane change by caller.
func metadataFor(s Session, requestID string) Metadata {
	return Metadata{Actor: Actor{Type: s.ActorType, ID: s.CredentialID}, AccountID: s.AccountID, RequestID: requestID}
}

// ownedDelivery returns the delivery when the log shows it to the caller: a
// delivery of another account or of a workspace the caller's token is not
// for, or of a kind no form's log shows (an account verification or password
// reset mail), is not found.
func ownedDelivery(ctx context.Context, log DeliveryLog, caller Session, id string) (DeliveryRecord, error) {
	rec, err := log.DeliveryByID(ctx, id)
	if err != nil {
		return DeliveryRecord{}, err
	}
	if rec.AccountID == "" || rec.AccountID != caller.AccountID || !caller.Access.Sees(rec.WorkspaceID) || !delivery.Listed(rec.Kind) {
		return DeliveryRecord{}, domain.ErrNotFound
	}
	return rec, nil
}
