package application

import (
	"cmp"
	"context"

	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/submission"
)

// PreviewTemplates renders a form's notification and autoresponder as
// they would be with the given templates (not saved) and sample fields.
type PreviewTemplates struct {
	Caller    Session
	FormID    string
	Templates form.Templates
	Fields    []submission.Field
}

// TemplatePreview is what the two mails would say.
type TemplatePreview struct {
	Notification  RenderedEmail
	Autoresponder RenderedEmail
}

// PreviewTemplatesHandler renders template previews with the Renderer
// deliveries use, so a preview shows what a submission would send.
type PreviewTemplatesHandler struct {
	read   FormReader
	render *Renderer
	clock  Clock
}

// NewPreviewTemplatesHandler builds the handler; every dependency is required.
func NewPreviewTemplatesHandler(read FormReader, render *Renderer, clock Clock) *PreviewTemplatesHandler {
	if read == nil || render == nil || clock == nil {
		panic("application: nil dependency of PreviewTemplatesHandler")
	}
	return &PreviewTemplatesHandler{read: read, render: render, clock: clock}
}

// Handle checks the templates as saving them would, then renders both
// mails as a test submission's (no spam link: nothing was stored).
func (h *PreviewTemplatesHandler) Handle(ctx context.Context, q PreviewTemplates) (TemplatePreview, error) {
	if err := q.Caller.Require(account.ScopeFormsRead); err != nil {
		return TemplatePreview{}, err
	}
	rec, err := ownedForm(ctx, h.read, q.Caller, q.FormID)
	if err != nil {
		return TemplatePreview{}, err
	}
	if err := q.Templates.Validate(); err != nil {
		return TemplatePreview{}, err
	}
	st := rec.Settings
	auto := st.Autoresponder
	p := Payload{Fields: q.Fields, FormName: st.Name, Recipient: st.RecipientEmail, FromName: st.FromNameDefault,
		Subject: cmp.Or(st.SubjectDefault, "New submission: "+st.Name), SubmitterEmail: "submitter@example.com",
		RequestID: "req_preview", Templates: q.Templates,
		Autoresponder: &AutoresponderMail{Subject: cmp.Or(auto.Subject, "Thanks for your message"), Message: auto.Message}}
	at := h.clock.Now()
	var out TemplatePreview
	for _, part := range []struct {
		kind string
		to   *RenderedEmail
	}{{delivery.KindEmail, &out.Notification}, {delivery.KindAutoresponder, &out.Autoresponder}} {
		q := delivery.Queued{DeliveryID: "preview-" + part.kind, SubmissionID: "preview", FormID: rec.ID, Kind: part.kind, At: at}
		rendered, err := h.render.RenderTest(ctx, q, p)
		if err != nil {
			return TemplatePreview{}, err
		}
		*part.to = *renderingOf(q, rendered).Email
	}
	return out, nil
}
