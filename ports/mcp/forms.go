package mcp

import (
	"context"
	"encoding/json"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/ports/portkit"
)

// formIDInput names one form.
type formIDInput struct {
	FormID string `json:"formId" jsonschema:"the form's id, as list_forms or create_form gives it"`
}

type listFormsInput struct{}

type formsOutput struct {
	Forms []portkit.Form `json:"forms"`
}

type formOutput struct {
	Form portkit.Form `json:"form"`
}

// savedShape acknowledges a change made by a credential that may write
// forms but not read them (forms:write without forms:read).
type savedShape struct {
	ID        string    `json:"id"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// formChangeOutput is update_form's answer: the form as it now is, or only
// an acknowledgement when the caller may not read forms.
type formChangeOutput struct {
	Form  *portkit.Form `json:"form,omitempty" jsonschema:"the form as it now is; absent when the credential may write forms but not read them"`
	Saved *savedShape   `json:"saved,omitempty" jsonschema:"set instead of form when the credential may write forms but not read them (no forms:read)"`
}

// createFormInput is the API's CreateForm (the captcha is set afterwards,
// with update_form, which stores its secret sealed).
type createFormInput struct {
	Name           string  `json:"name" jsonschema:"the form's name, shown in notification emails"`
	RecipientEmail string  `json:"recipientEmail" jsonschema:"who receives the submissions; they must follow the link in formd's verification email before live submissions are delivered"`
	WorkspaceID    *string `json:"workspaceId,omitempty" jsonschema:"the workspace to create the form in (a workspace token's own by default)"`
	WorkspaceName  *string `json:"workspaceName,omitempty" jsonschema:"creates the form in a new workspace of this name (sessions only)"`
	settingsInput
}

// updateFormInput is PATCH /v1/forms/{formId}: only what is given changes.
type updateFormInput struct {
	FormID         string        `json:"formId" jsonschema:"the form's id"`
	Name           *string       `json:"name,omitempty"`
	RecipientEmail *string       `json:"recipientEmail,omitempty" jsonschema:"a new recipient is unverified until they follow the link formd emails them"`
	Captcha        *captchaInput `json:"captcha,omitempty" jsonschema:"the captcha submissions must pass"`
	settingsInput
}

// historyEntryShape is one entry of a form's audit trail.
type historyEntryShape struct {
	Type       string        `json:"type" jsonschema:"the event's type, such as form.settings_changed.v1"`
	Version    int           `json:"version" jsonschema:"the form's version after the event"`
	RecordedAt time.Time     `json:"recordedAt"`
	Actor      actorShape    `json:"actor" jsonschema:"who made the change: a session, a workspace token, an agent, a verification link or the system"`
	RequestID  string        `json:"requestId,omitempty"`
	Changes    []changeShape `json:"changes"`
	// RestoredVersion names, for a restore, the version brought back.
	RestoredVersion int `json:"restoredVersion,omitempty" jsonschema:"for a restore (form.settings_restored.v1): the version whose settings it brought back"`
}

// actorShape is who made a change, as the event recorded it and by name.
type actorShape struct {
	Type string `json:"type" jsonschema:"session, token, agent, verification_link, system, submitter or telegram"`
	ID   string `json:"id" jsonschema:"the actor's id; for a session a prefix of its token's hash, never the token"`
	Name string `json:"name" jsonschema:"who acted, for a person to read: an account's current email, a token's name and prefix, or what the actor is (formd, verification link)"`
}

// changeShape is one setting's value before and after an event.
type changeShape struct {
	Field string `json:"field"`
	From  any    `json:"from"`
	To    any    `json:"to"`
}

type historyOutput struct {
	Events []historyEntryShape `json:"events"`
}

func (s *Server) formTools(srv *sdk.Server) {
	addTool(s, srv, &sdk.Tool{Name: "list_forms", Title: "List forms", Annotations: readOnly,
		Description: "Lists the forms the credential can see (a workspace token: its workspace's), with every setting and whether the recipient is verified. Needs forms:read."},
		func(ctx context.Context, caller application.Session, _ listFormsInput) (formsOutput, error) {
			forms, err := s.app.Queries.ListForms.Handle(ctx, application.ListForms{Caller: caller})
			if err != nil {
				return formsOutput{}, err
			}
			out := formsOutput{Forms: make([]portkit.Form, len(forms))}
			for i, f := range forms {
				out.Forms[i] = portkit.PresentForm(f)
			}
			return out, nil
		})

	addTool(s, srv, &sdk.Tool{Name: "create_form", Title: "Create a form", Annotations: sends,
		Description: "Creates a form and emails its recipient a verification link. Returns the form with its public accessKey, " +
			"shown only this once: websites post to /submit with it. Live submissions are delivered only after the recipient " +
			"follows the link (a person must do that); dry runs work at once. The account's own email must be verified first. Needs forms:write."},
		func(ctx context.Context, caller application.Session, in createFormInput) (formOutput, error) {
			workspaceID := deref(in.WorkspaceID)
			if workspaceID != "" {
				id, ok := portkit.ID(workspaceID)
				if !ok {
					return formOutput{}, domain.Invalid("workspaceId", "workspaceId must be a UUID")
				}
				workspaceID = id
			}
			p := in.patch()
			created, err := s.app.Commands.CreateForm.Handle(ctx, application.CreateForm{
				Caller: caller, RequestID: requestIDOf(ctx), WorkspaceID: workspaceID,
				WorkspaceName: deref(in.WorkspaceName),
				Settings: form.Settings{Name: in.Name, RecipientEmail: in.RecipientEmail,
					AllowedDomains: deref(p.AllowedDomains), SubjectDefault: deref(p.SubjectDefault),
					FromNameDefault: deref(p.FromNameDefault), RedirectDefault: deref(p.RedirectDefault),
					ReplyToMode: deref(p.ReplyToMode), ReplyToDefault: deref(p.ReplyToDefault), Validation: deref(p.Validation),
					AllowedSenderIPs: deref(p.AllowedSenderIPs), UploadsEnabled: deref(p.UploadsEnabled),
					UploadLimits: deref(p.UploadLimits), Autoresponder: deref(p.Autoresponder), TestMode: deref(p.TestMode),
					Archive: deref(p.Archive), Spam: deref(p.Spam), Templates: deref(p.Templates),
					Routes: deref(p.Routes), Language: deref(p.Language), Pages: deref(p.Pages)},
			})
			if err != nil {
				return formOutput{}, err
			}
			out := portkit.PresentForm(created.Form)
			out.AccessKey = created.AccessKey
			return formOutput{Form: out}, nil
		})

	addTool(s, srv, &sdk.Tool{Name: "update_form", Title: "Change a form's settings", Annotations: sends,
		Description: "Changes a form's settings: only the fields given change (the same fields as PATCH /v1/forms/{formId}). " +
			"A new recipientEmail is emailed a new verification link and is unverified until they follow it. Every change is kept " +
			"in the audit trail (get_form_history). Needs forms:write."},
		func(ctx context.Context, caller application.Session, in updateFormInput) (formChangeOutput, error) {
			id, err := idOf(in.FormID)
			if err != nil {
				return formChangeOutput{}, err
			}
			p := in.patch()
			p.Name, p.RecipientEmail = in.Name, in.RecipientEmail
			if c := in.Captcha; c != nil {
				p.Captcha = &form.CaptchaPatch{Provider: c.Provider, SiteKey: c.SiteKey, Secret: c.Secret, MinScore: c.MinScore}
			}
			f, err := s.app.Commands.UpdateForm.Handle(ctx, application.UpdateForm{Caller: caller, RequestID: requestIDOf(ctx), FormID: id, Patch: p})
			if err != nil {
				return formChangeOutput{}, err
			}
			return formChanged(caller, f), nil
		})

	addTool(s, srv, &sdk.Tool{Name: "get_form_history", Title: "Read a form's audit trail", Annotations: readOnly,
		Description: "Reads a form's audit trail, oldest first: every change to its settings, integrations and recipient " +
			"verification, with who made it, when, and each setting's value before and after. Needs forms:read."},
		func(ctx context.Context, caller application.Session, in formIDInput) (historyOutput, error) {
			id, err := idOf(in.FormID)
			if err != nil {
				return historyOutput{}, err
			}
			history, err := s.app.Queries.FormHistory.Handle(ctx, application.FormHistory{Caller: caller, FormID: id})
			if err != nil {
				return historyOutput{}, err
			}
			out := historyOutput{Events: make([]historyEntryShape, len(history))}
			for i, e := range history {
				a := e.Metadata.Actor
				out.Events[i] = historyEntryShape{Type: e.Type, Version: e.Version, RecordedAt: e.RecordedAt,
					Actor: actorShape{Type: a.Type, ID: a.ID, Name: e.ActorName}, RequestID: e.Metadata.RequestID, Changes: changesOf(e),
					RestoredVersion: e.RestoredVersion()}
			}
			return out, nil
		})
}

// changesOf says what an event changed, each value decoded from its JSON.
func changesOf(e application.HistoryEntry) []changeShape {
	changes := e.Changes()
	out := make([]changeShape, len(changes))
	for i, c := range changes {
		out[i] = changeShape{Field: c.Field, From: decoded(c.From), To: decoded(c.To)}
	}
	return out
}

func decoded(raw json.RawMessage) any {
	var v any
	if len(raw) > 0 {
		_ = json.Unmarshal(raw, &v)
	}
	return v
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// formChanged answers a saved change to a form (update, restore): the
// form, or an acknowledgement to a caller that may not read forms.
func formChanged(caller application.Session, f application.FormRecord) formChangeOutput {
	if !caller.ReadsForms() {
		return formChangeOutput{Saved: &savedShape{ID: f.ID, UpdatedAt: f.UpdatedAt}}
	}
	shape := portkit.PresentForm(f)
	return formChangeOutput{Form: &shape}
}
