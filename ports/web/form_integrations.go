package web

import (
	"errors"
	"net/http"
	"strings"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/ports/portkit"
)

// dashboardIntegrationTypes are the integrations the dashboard configures,
// in the page's order: every type the API has.
var dashboardIntegrationTypes = []form.IntegrationType{form.IntegrationWebhook, form.IntegrationSlack, form.IntegrationDiscord,
	form.IntegrationTelegram, form.IntegrationGoogleSheets}

// integrationLabels name them for people.
var integrationLabels = map[form.IntegrationType]string{
	form.IntegrationWebhook: "Webhook", form.IntegrationSlack: "Slack", form.IntegrationDiscord: "Discord",
	form.IntegrationTelegram: "Telegram", form.IntegrationGoogleSheets: "Google Sheets",
}

// integrationFieldNames map an integration's settings in errors (as PATCH
// /v1/forms/{formId}/integrations/{type} names them) to the card's fields.
var integrationFieldNames = map[string]string{"targetUrl": "targetUrl", "enabled": "enabled", "chatId": "chatId",
	"spreadsheetId": "spreadsheetId", "sheetName": "sheetName"}

// integrationCard is one integration's card: its state and its form.
type integrationCard struct {
	Type       form.IntegrationType
	Label      string
	Configured bool
	Enabled    bool
	// TargetURL is what was typed; SavedURL the saved address, masked
	// (form.MaskURL): the field starts empty and, left empty, keeps it.
	TargetURL, SavedURL string
	// ChatID is a Telegram chat's; SpreadsheetID and SheetName a Google
	// sheet's.
	ChatID, SpreadsheetID, SheetName string
	// SecretPrefix is the start of a webhook's signing secret.
	SecretPrefix string
	// Connect is a Telegram connect code just issued, shown this once.
	Connect *application.ConnectCode
	// SheetProven tells whether a Google sheet is proven; Proof, while
	// not, is the code to write and where.
	SheetProven bool
	Proof       *application.SheetProof
	Errors      fieldErrors
}

// integrationsPage is the Integrations tab.
type integrationsPage struct {
	Form  formHeader
	Cards []integrationCard
	// Secret is a webhook signing secret just made, shown this once.
	Secret string
	// Connect is a Telegram connect code just issued, shown this once.
	Connect *application.ConnectCode
	// Proof is a Google sheet's proof code, after a save left it unproven.
	Proof *application.SheetProof
}

func (s *Server) showIntegrations(w http.ResponseWriter, r *http.Request, v *visitor) {
	f, ok := s.loadForm(w, r, v, "Integrations")
	if !ok {
		return
	}
	s.drawIntegrations(w, r, v, f, http.StatusOK, integrationsPage{}, nil, notices[r.URL.Query().Get("notice")])
}

// drawIntegrations shows the page; typed, when set, replaces one card's
// stored values with what was typed (and its errors).
func (s *Server) drawIntegrations(w http.ResponseWriter, r *http.Request, v *visitor, f formHeader, status int,
	page integrationsPage, typed *integrationCard, notice string) {
	list, err := s.app.Queries.ListIntegrations.Handle(r.Context(), application.ListIntegrations{Caller: v.Session, FormID: f.ID})
	if err != nil {
		s.failed(w, r, err)
		return
	}
	stored := map[form.IntegrationType]application.IntegrationRecord{}
	for _, i := range list {
		stored[i.Type] = i
	}
	page.Form = f
	for _, t := range dashboardIntegrationTypes {
		card := integrationCard{Type: t, Label: integrationLabels[t]}
		if i, ok := stored[t]; ok {
			card.Configured, card.Enabled, card.SavedURL, card.SecretPrefix = true, i.Enabled, i.TargetURL, i.SecretPrefix
			card.ChatID, card.SpreadsheetID, card.SheetName, card.SheetProven = i.ChatID, i.SpreadsheetID, i.SheetName, i.SheetProven
		}
		if t == form.IntegrationGoogleSheets {
			card.Proof = page.Proof
		}
		if t == form.IntegrationTelegram {
			card.Connect = page.Connect
		}
		if typed != nil && typed.Type == t {
			card.Enabled, card.TargetURL, card.Errors = typed.Enabled, typed.TargetURL, typed.Errors
			card.SpreadsheetID, card.SheetName = typed.SpreadsheetID, typed.SheetName
		}
		page.Cards = append(page.Cards, card)
	}
	alert := ""
	if typed != nil {
		alert = typed.Errors[""]
	}
	s.render(w, r, status, "form-integrations", view{Title: f.Name + ": integrations", Section: "forms", Visitor: v,
		Notice: notice, Alert: alert, Data: page})
}

// integrationTypeOf reads the path's type; only the dashboard's types exist here.
func integrationTypeOf(r *http.Request) (form.IntegrationType, bool) {
	t := form.IntegrationType(r.PathValue("type"))
	_, ok := integrationLabels[t]
	return t, ok
}

// configureIntegration saves one integration through the same command as
// PATCH /v1/forms/{formId}/integrations/{type}; a webhook's first save
// shows its signing secret this once.
func (s *Server) configureIntegration(w http.ResponseWriter, r *http.Request, v *visitor) {
	f, ok := s.loadForm(w, r, v, "Integrations")
	if !ok {
		return
	}
	t, ok := integrationTypeOf(r)
	if !ok {
		s.errorPage(w, r, http.StatusNotFound, "")
		return
	}
	typed := integrationCard{Type: t, Enabled: r.PostFormValue("enabled") == "on", TargetURL: strings.TrimSpace(r.PostFormValue("targetUrl")),
		SpreadsheetID: strings.TrimSpace(r.PostFormValue("spreadsheetId")), SheetName: strings.TrimSpace(r.PostFormValue("sheetName"))}
	// Each type is sent only its own settings, as the API refuses others.
	// A Telegram chat is never typed in: it is connected with a code, and
	// only disconnected here.
	patch := form.IntegrationPatch{Enabled: &typed.Enabled}
	switch t {
	case form.IntegrationTelegram:
		if r.PostFormValue("disconnect") == "on" {
			patch.ChatID = new(string)
		}
	case form.IntegrationGoogleSheets:
		patch.SpreadsheetID, patch.SheetName = &typed.SpreadsheetID, &typed.SheetName
	default:
		if typed.TargetURL != "" { // left empty: the saved address stays
			patch.TargetURL = &typed.TargetURL
		}
	}
	out, err := s.app.Commands.ConfigureIntegration.Handle(r.Context(), application.ConfigureIntegration{Caller: v.Session,
		RequestID: requestIDOf(r), FormID: f.ID, Type: t, Patch: patch})
	if err != nil {
		if problems, ok := formProblem(err, integrationFieldNames); ok {
			typed.Errors = problems
			s.drawIntegrations(w, r, v, f, http.StatusBadRequest, integrationsPage{}, &typed, "")
			return
		}
		s.failed(w, r, err)
		return
	}
	if out.Secret != "" || out.Connect != nil || out.Proof != nil {
		s.drawIntegrations(w, r, v, f, http.StatusOK, integrationsPage{Secret: out.Secret, Connect: out.Connect, Proof: out.Proof}, nil,
			notices["integration-saved"])
		return
	}
	http.Redirect(w, r, Prefix+"/forms/"+f.ID+"/integrations?notice=integration-saved", http.StatusSeeOther)
}

// testIntegration queues a sample message to one integration, through the
// same command as POST /v1/forms/{formId}/integrations/{type}/test.
func (s *Server) testIntegration(w http.ResponseWriter, r *http.Request, v *visitor) {
	f, ok := s.loadForm(w, r, v, "Integrations")
	if !ok {
		return
	}
	t, ok := integrationTypeOf(r)
	if !ok {
		s.errorPage(w, r, http.StatusNotFound, "")
		return
	}
	_, err := s.app.Commands.TestIntegration.Handle(r.Context(), application.TestIntegration{Caller: v.Session,
		RequestID: requestIDOf(r), FormID: f.ID, Type: t})
	var tooMany *domain.TooManyRequestsError
	if errors.As(err, &tooMany) {
		portkit.SetRetryAfter(w.Header(), tooMany.RetryAfter)
		s.drawIntegrations(w, r, v, f, http.StatusTooManyRequests, integrationsPage{}, &integrationCard{Type: t, Errors: fieldErrors{"": tooMany.Message}}, "")
		return
	}
	if err != nil {
		if problems, ok := formProblem(err, nil); ok {
			s.drawIntegrations(w, r, v, f, http.StatusBadRequest, integrationsPage{}, &integrationCard{Type: t, Errors: problems}, "")
			return
		}
		s.failed(w, r, err)
		return
	}
	http.Redirect(w, r, Prefix+"/forms/"+f.ID+"/integrations?notice=integration-test-queued", http.StatusSeeOther)
}

// rotateWebhookSecret gives the webhook a new signing secret, shown this
// once; the old one keeps signing for a while, as the API's rotation does.
func (s *Server) rotateWebhookSecret(w http.ResponseWriter, r *http.Request, v *visitor) {
	f, ok := s.loadForm(w, r, v, "Integrations")
	if !ok {
		return
	}
	out, err := s.app.Commands.RotateWebhookSecret.Handle(r.Context(), application.RotateWebhookSecret{Caller: v.Session,
		RequestID: requestIDOf(r), FormID: f.ID})
	if err != nil {
		if problems, ok := formProblem(err, nil); ok {
			s.drawIntegrations(w, r, v, f, http.StatusBadRequest, integrationsPage{}, &integrationCard{Type: form.IntegrationWebhook, Errors: problems}, "")
			return
		}
		s.failed(w, r, err)
		return
	}
	s.drawIntegrations(w, r, v, f, http.StatusOK, integrationsPage{Secret: out.Secret}, nil, notices["webhook-secret-rotated"])
}
