package application

import (
	"context"
	"errors"
	"html"
	"strings"
	"testing"
	"time"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/submission"
)

// plainTemplates stands in for the Mustache engine: it replaces each
// {{name}} whose data is a string, escaped for HTML when asked, and fails
// a template that says "fail".
type plainTemplates struct{}

func (plainTemplates) Render(source string, isHTML bool, data map[string]any) (string, error) {
	if strings.Contains(source, "fail") {
		return "", errors.New("over the limit")
	}
	for name, v := range data {
		if s, ok := v.(string); ok {
			if isHTML {
				s = html.EscapeString(s)
			}
			source = strings.ReplaceAll(source, "{{"+name+"}}", s)
		}
	}
	return source, nil
}

func renderMail(t *testing.T, q delivery.Queued, p Payload) Mail {
	t.Helper()
	out, err := NewRenderer(MailSettings{BaseURL: "https://forms.example.com"}, noSecrets{}, plainSealer{}, plainLinks{}, plainSpamLinks{},
		fixedClock{}, plainTemplates{}).Render(context.Background(), q, p)
	if err != nil || out.Mail == nil {
		t.Fatalf("Render = %+v, %v", out, err)
	}
	return *out.Mail
}

func TestNotificationTemplatesRenderEachPart(t *testing.T) {
	q := delivery.Queued{DeliveryID: "d1", SubmissionID: "s1", FormID: "f1", Kind: delivery.KindEmail, At: time.Now()}
	p := Payload{FormName: "Contact", Subject: "New", Recipient: "owner@example.com", RequestID: "req-1", SpamLink: true,
		Fields: []submission.Field{{Name: "name", Value: "Ada"}, {Name: "name", Value: "Second"}, {Name: "formName", Value: "spoof"},
			{Name: "message", Value: "<b>hi</b>"}},
		Templates: form.Templates{Notification: form.MessageTemplate{Subject: "From {{name}}\r\nBcc: x@example.com  {{formName}}",
			Text: "{{name}} says {{message}}", HTML: "<p>{{message}} ({{requestId}}, {{submissionId}})</p>"}}}
	m := renderMail(t, q, p)
	if m.Subject != "From Ada Bcc: x@example.com Contact" {
		t.Errorf("subject %q: one line, the first value, the form's own name winning", m.Subject)
	}
	if !strings.HasPrefix(m.Text, "Ada says <b>hi</b>\nWas this spam?") {
		t.Errorf("text %q", m.Text)
	}
	if m.HTML != "<p>&lt;b&gt;hi&lt;/b&gt; (req-1, s1)</p>" {
		t.Errorf("html %q", m.HTML)
	}
}

func TestTaggedSpamKeepsTheSubjectMarker(t *testing.T) {
	q := delivery.Queued{DeliveryID: "d1", SubmissionID: "s1", FormID: "f1", Kind: delivery.KindEmail, At: time.Now()}
	p := Payload{FormName: "Contact", Subject: submission.SpamSubjectMarker + "New", Recipient: "owner@example.com",
		Fields: []submission.Field{{Name: "name", Value: "Ada"}}, Spam: &SpamTag{Score: 7},
		Templates: form.Templates{Notification: form.MessageTemplate{Subject: "From {{name}}"}}}
	if m := renderMail(t, q, p); m.Subject != "[SPAM] From Ada" {
		t.Errorf("a templated subject of tagged spam: %q", m.Subject)
	}
	p.Templates = form.Templates{}
	if m := renderMail(t, q, p); m.Subject != "[SPAM] New" {
		t.Errorf("the default subject of tagged spam: %q", m.Subject)
	}
}

func TestNotificationDefaultsAndFallback(t *testing.T) {
	q := delivery.Queued{DeliveryID: "d1", SubmissionID: "s1", FormID: "f1", Kind: delivery.KindEmail, At: time.Now()}
	p := Payload{FormName: "Contact", Subject: "New", Recipient: "owner@example.com", Fields: []submission.Field{{Name: "name", Value: "Ada"}},
		Templates: form.Templates{Notification: form.MessageTemplate{Subject: "{{fail}}", HTML: "fail"}}}
	m := renderMail(t, q, p)
	if m.Subject != "New" || m.Text != notificationText(p, nil) {
		t.Errorf("a failing template keeps the default: %q %q", m.Subject, m.Text)
	}
	if !strings.Contains(m.HTML, "<h1") || !strings.Contains(m.HTML, "New submission to Contact") {
		t.Errorf("the default HTML part: %q", m.HTML)
	}
}

func TestAutoresponderTemplates(t *testing.T) {
	q := delivery.Queued{DeliveryID: "d2", SubmissionID: "s1", FormID: "f1", Kind: delivery.KindAutoresponder, At: time.Now()}
	p := Payload{FormName: "Contact", SubmitterEmail: "ada@example.com", Fields: []submission.Field{{Name: "name", Value: "Ada"}},
		Autoresponder: &AutoresponderMail{Subject: "Thanks", Message: "We got it"}}
	if m := renderMail(t, q, p); m.Subject != "Thanks" || m.Text != "We got it\n" || m.HTML != "" {
		t.Errorf("without templates: %+v", m)
	}
	p.Templates.Autoresponder = form.MessageTemplate{Subject: "Thanks, {{name}}", HTML: "<p>Dear {{name}}</p>"}
	if m := renderMail(t, q, p); m.Subject != "Thanks, Ada" || m.Text != "We got it\n" || m.HTML != "<p>Dear Ada</p>" {
		t.Errorf("with templates: %+v", m)
	}
}

func TestPayloadCarriesTemplates(t *testing.T) {
	in := Payload{FormName: "Contact", Templates: form.Templates{Autoresponder: form.MessageTemplate{Text: "Hi {{name}}"}}}
	b, err := encodePayload(in)
	if err != nil {
		t.Fatal(err)
	}
	out, err := decodePayload(b)
	if err != nil || out.Templates != in.Templates {
		t.Fatalf("decoded %+v, %v", out.Templates, err)
	}
	b, _ = encodePayload(Payload{FormName: "Contact"})
	if strings.Contains(string(b), "templates") {
		t.Errorf("a form without templates stores none: %s", b)
	}
}

// previewForms holds one form, Contact, of acct-1.
type previewForms struct{}

func (previewForms) FormByID(_ context.Context, id string) (FormRecord, error) {
	if id != "form-1" {
		return FormRecord{}, domain.ErrNotFound
	}
	return FormRecord{ID: id, AccountID: "acct-1", Settings: form.Settings{Name: "Contact", RecipientEmail: "owner@example.com"}}, nil
}

func TestPreviewTemplates(t *testing.T) {
	render := NewRenderer(MailSettings{}, noSecrets{}, plainSealer{}, plainLinks{}, plainSpamLinks{}, fixedClock{}, plainTemplates{})
	h := NewPreviewTemplatesHandler(previewForms{}, render, fixedClock{})
	q := PreviewTemplates{Caller: owner, FormID: "form-1", Fields: []submission.Field{{Name: "name", Value: "Ada"}},
		Templates: form.Templates{Notification: form.MessageTemplate{Subject: "From {{name}}"}, Autoresponder: form.MessageTemplate{Text: "Hi {{name}}"}}}
	got, err := h.Handle(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if got.Notification.Subject != "From Ada" || got.Notification.HTML == nil || got.Autoresponder.Text != "Hi Ada" {
		t.Errorf("preview %+v", got)
	}
	q.Templates.Notification.HTML = "{{#x}}"
	var invalid *domain.InvalidInputError
	if _, err := h.Handle(context.Background(), q); !errors.As(err, &invalid) || invalid.Field != "templates.notification.html" {
		t.Errorf("a template error: %v", err)
	}
	q.Caller.AccountID = "acct-2"
	if _, err := h.Handle(context.Background(), q); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("another account's form: %v", err)
	}
}

// The default HTML notification keeps the rules a form's own HTML template
// must: every value escaped, no partial.
func TestDefaultNotificationHTMLIsAValidTemplate(t *testing.T) {
	if err := form.CheckTemplate(defaultNotificationHTML, true); err != nil {
		t.Fatal(err)
	}
}
