package mcp

import (
	"context"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/formd/formd/application"
	"github.com/formd/formd/ports/portkit"
)

// formVersionInput names one version of a form.
type formVersionInput struct {
	FormID  string `json:"formId" jsonschema:"the form's id"`
	Version int    `json:"version" jsonschema:"a version of the form: 1 (its creation) up to its current version, as version in get_form_history"`
}

// formVersionOutput is a form as one version left it.
type formVersionOutput struct {
	Version    int          `json:"version"`
	Type       string       `json:"type" jsonschema:"the type of the event that made this version"`
	RecordedAt time.Time    `json:"recordedAt"`
	Actor      actorShape   `json:"actor"`
	Settings   portkit.Form `json:"settings" jsonschema:"the form as update_form answers it, as it was at this version"`
}

func (s *Server) formVersionTools(srv *sdk.Server) {
	addTool(s, srv, &sdk.Tool{Name: "get_form_version", Title: "Read a form's settings as of a version", Annotations: readOnly,
		Description: "Reads a form as one version of its audit trail left it: every setting (never a secret), the event that made " +
			"the version, when and by whom. GET /v1/forms/{formId}/versions/{version}. Needs forms:read."},
		func(ctx context.Context, caller application.Session, in formVersionInput) (formVersionOutput, error) {
			id, err := idOf(in.FormID)
			if err != nil {
				return formVersionOutput{}, err
			}
			v, err := s.app.Queries.FormVersion.Handle(ctx, application.FormVersion{Caller: caller, FormID: id, Version: in.Version})
			if err != nil {
				return formVersionOutput{}, err
			}
			e := v.Entry
			return formVersionOutput{Version: e.Version, Type: e.Type, RecordedAt: e.RecordedAt,
				Actor:    actorShape{Type: e.Metadata.Actor.Type, ID: e.Metadata.Actor.ID, Name: e.ActorName},
				Settings: portkit.PresentForm(v.Form)}, nil
		})

	addTool(s, srv, &sdk.Tool{Name: "restore_form_version", Title: "Restore a form's settings of an earlier version", Annotations: sends,
		Description: "Makes the settings of an earlier version the form's current ones, as a new form.settings_restored.v1 event " +
			"of the audit trail (nothing is rewritten). Checked against the current plan as update_form is: a setting the plan " +
			"no longer allows refuses the restore, naming it. Integrations, secrets and the captcha stay as they are; a restored " +
			"recipientEmail other than the current one is emailed a new verification link. POST /v1/forms/{formId}/restore. Needs forms:write."},
		func(ctx context.Context, caller application.Session, in formVersionInput) (formChangeOutput, error) {
			id, err := idOf(in.FormID)
			if err != nil {
				return formChangeOutput{}, err
			}
			f, err := s.app.Commands.RestoreFormVersion.Handle(ctx, application.RestoreFormVersion{Caller: caller,
				RequestID: requestIDOf(ctx), FormID: id, Version: in.Version})
			if err != nil {
				return formChangeOutput{}, err
			}
			return formChanged(caller, f), nil
		})
}
