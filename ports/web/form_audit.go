package web

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/ports/portkit"
)

// auditEntry is one event of a form's audit trail, as the timeline shows it.
type auditEntry struct {
	What string
	Type string
	// Actor names who acted (an account's email, a token's name); ActorKind
	// says what it is when the name does not already (a signed-in user, an
	// API token), beside the id the event recorded.
	Actor     string
	ActorKind string
	ActorID   string
	At        time.Time
	RequestID string
	Changes   []auditChange
	// Version is the event's place in its stream; Restored, for a restore,
	// the version it brought back. VersionPath, on a form's trail only,
	// links the page of the settings as of Version.
	Version, Restored int
	VersionPath       string
}

// auditChange is one setting's value before and after.
type auditChange struct {
	Field, From, To string
}

// auditPage is the audit trail tab, newest event first.
type auditPage struct {
	Form    formHeader
	Entries []auditEntry
	// Export downloads the auditor's bundle of the form.
	Export string
	// Accesses are the latest reads of the form's submissions archive.
	Accesses []accessRow
}

// eventLabels name the form's event types.
var eventLabels = map[string]string{
	form.CreatedType:                "Form created",
	form.SettingsChangedType:        "Settings changed",
	form.SettingsRestoredType:       "Settings restored",
	form.RecipientVerifiedType:      "Recipient verified",
	form.RouteRecipientVerifiedType: "Routing recipient verified",
	form.IntegrationConfiguredType:  "Integration configured",
	form.WebhookSecretIssuedType:    "Webhook signing secret issued",
	form.TelegramChatConnectedType:  "Telegram chat connected",
	form.GoogleSheetProvenType:      "Google spreadsheet proven",
	form.SubmissionsErasedType:      "Submissions erased",
	form.SpamReviewedType:           "Spam folder reviewed",

	account.RegisteredType:       "Account registered",
	account.EmailVerifiedType:    "Email verified",
	account.WorkspaceCreatedType: "Workspace created",
	account.FeatureGrantedType:   "Feature granted",
	account.FeatureRevokedType:   "Feature revoked",
	account.PasswordResetType:    "Password reset",
	account.PlanChangedType:      "Plan changed",
	account.TokenCreatedType:     "API token created",
	account.TokenRevokedType:     "API token revoked",
}

// actorLabels say who an actor type is.
var actorLabels = map[string]string{
	application.ActorSession:   "Signed-in user",
	application.ActorToken:     "API token",
	application.ActorAgent:     "Agent session",
	application.ActorLink:      "Verification link",
	application.ActorSystem:    "formd",
	application.ActorSubmitter: "Submitter",
	application.ActorOperator:  "Operator",
	application.ActorAnonymous: "Anonymous",
	application.ActorTelegram:  "Telegram",
	application.ActorMailLink:  "Spam link in a notification mail",
}

func (s *Server) showAudit(w http.ResponseWriter, r *http.Request, v *visitor) {
	f, ok := s.loadForm(w, r, v, "Audit trail")
	if !ok {
		return
	}
	history, err := s.app.Queries.FormHistory.Handle(r.Context(), application.FormHistory{Caller: v.Session, FormID: f.ID})
	if err != nil {
		s.failed(w, r, err)
		return
	}
	accesses, err := s.app.Queries.ReadSubmissions.Accesses(r.Context(), v.Session, f.ID, accessesShown)
	if err != nil {
		s.failed(w, r, err)
		return
	}
	entries := timelineOf(history)
	for i := range entries {
		entries[i].VersionPath = Prefix + "/forms/" + f.ID + "/versions/" + strconv.Itoa(entries[i].Version)
	}
	page := auditPage{Form: f, Entries: entries, Export: Prefix + "/forms/" + f.ID + "/audit/export",
		Accesses: accessRowsOf(f.ID, accesses)}
	s.render(w, r, http.StatusOK, "form-audit", view{Title: f.Name + ": audit trail", Section: "forms", Visitor: v,
		Notice: notices[r.URL.Query().Get("notice")], Data: page})
}

// exportAudit downloads the auditor's bundle of the form, as the
// application wrote it: a verifier accepts only those exact bytes. Before
// a checkpoint covers the form, the page says to come back in a minute.
func (s *Server) exportAudit(w http.ResponseWriter, r *http.Request, v *visitor) {
	formID, ok := formIDOf(r)
	if !ok {
		s.errorPage(w, r, http.StatusNotFound, "")
		return
	}
	bundle, err := s.app.Queries.ExportAudit.Handle(r.Context(), application.ExportAudit{Caller: v.Session, FormID: formID})
	if errors.Is(err, application.ErrNothingCheckpointed) {
		portkit.SetRetryAfter(w.Header(), portkit.AuditBundleRetryAfter)
		s.errorPage(w, r, http.StatusServiceUnavailable, upperFirst(err.Error())+".")
		return
	}
	if err != nil {
		s.failed(w, r, err)
		return
	}
	portkit.SetAuditBundleHeaders(w.Header(), formID)
	_, _ = w.Write(bundle)
}

// actorLabel says who an actor type is, for people; a type without words
// is shown as it is.
func actorLabel(actorType string) string {
	if label := actorLabels[actorType]; label != "" {
		return label
	}
	return actorType
}

// timelineOf shows a stream's history newest first, as the form's and the
// account's audit trails do.
func timelineOf(history []application.HistoryEntry) []auditEntry {
	entries := make([]auditEntry, 0, len(history))
	for i := len(history) - 1; i >= 0; i-- {
		e := history[i]
		what := eventLabels[e.Type]
		if what == "" {
			what = e.Type
		}
		name, kind := e.ActorName, actorLabel(e.Metadata.Actor.Type)
		if name == "" {
			name = kind
		}
		if strings.EqualFold(name, kind) {
			kind = ""
		}
		entries = append(entries, auditEntry{What: what, Type: e.Type, Actor: name, ActorKind: kind, ActorID: e.Metadata.Actor.ID,
			At: e.RecordedAt, RequestID: e.Metadata.RequestID, Changes: changesOf(e), Version: e.Version, Restored: e.RestoredVersion()})
	}
	return entries
}

// changesOf says what an event changed, as the JSON API's audit trail does
// (GET /v1/forms/{formId}/events): secrets only ever by their prefix.
func changesOf(e application.HistoryEntry) []auditChange {
	changes := e.Changes()
	out := make([]auditChange, 0, len(changes))
	for _, c := range changes {
		shown := shownChange(c)
		switch e.Type {
		case form.SubmissionsErasedType:
			shown.To = shownErasure(c.To)
		case form.SpamReviewedType:
			shown.To = shownReview(c.To)
		}
		if shown.From == shown.To {
			continue // a setting created empty: nothing to tell
		}
		out = append(out, shown)
	}
	return out
}

// shownChange writes one setting's change for people, in the words its
// setting is shown with.
func shownChange(c form.Change) auditChange {
	from, to := shownValue(c.From), shownValue(c.To)
	switch c.Field {
	case "archive":
		from, to = shownArchive(c.From), shownArchive(c.To)
	case "spam":
		from, to = shownSpam(c.From), shownSpam(c.To)
	}
	return auditChange{Field: c.Field, From: from, To: to}
}

// shownValue writes a JSON value for people: strings without quotes,
// nothing as a dash.
func shownValue(raw json.RawMessage) string {
	v := strings.TrimSpace(string(raw))
	switch v {
	case "", "null", `""`, "[]", "{}":
		return "—"
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return v
}

// shownArchive writes the submissions archive for people: "off" or
// "on, 30 days" (absent from a settings event while off).
func shownArchive(raw json.RawMessage) string {
	var a form.Archive
	if v := strings.TrimSpace(string(raw)); v == "" || v == "null" || json.Unmarshal(raw, &a) != nil || !a.Enabled {
		return "off"
	}
	if a.RetentionDays == 1 {
		return "on, 1 day"
	}
	return "on, " + strconv.Itoa(a.RetentionDays) + " days"
}

// shownSpam writes the spam policy for people: "off" or "tag, 3 rules"
// (absent from a settings event while off without rules).
func shownSpam(raw json.RawMessage) string {
	var s form.Spam
	if v := strings.TrimSpace(string(raw)); v != "" && v != "null" && json.Unmarshal(raw, &s) != nil {
		return shownValue(raw)
	}
	return s.Summary()
}

// shownErasure writes an erasure for people: "erased 3 submissions of a
// submitter" or "erased 1 submission".
func shownErasure(raw json.RawMessage) string {
	var e struct {
		Erased int    `json:"erased"`
		By     string `json:"by"`
	}
	if json.Unmarshal(raw, &e) != nil {
		return shownValue(raw)
	}
	noun := "submissions"
	if e.Erased == 1 {
		noun = "submission"
	}
	out := "erased " + strconv.Itoa(e.Erased) + " " + noun
	if e.By == form.ErasedByEmail {
		out += " of a submitter"
	}
	return out
}

// shownReview writes a review of the Spam folder for people: "released
// 0b4f… as not spam (rspamd learned it)".
func shownReview(raw json.RawMessage) string {
	var r struct {
		SubmissionID string `json:"submissionId"`
		Verdict      string `json:"verdict"`
		Learned      bool   `json:"learned"`
	}
	if json.Unmarshal(raw, &r) != nil {
		return shownValue(raw)
	}
	var out string
	switch r.Verdict {
	case form.ReviewedNotSpam:
		out = "released " + r.SubmissionID + " as not spam"
	case form.ReviewedSpam:
		out = "shredded " + r.SubmissionID + " as spam"
	default:
		out = "deleted " + r.SubmissionID
	}
	if r.Learned {
		out += " (the spam filter learned it)"
	}
	return out
}
