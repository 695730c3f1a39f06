package web

import (
	"net/http"
	"strconv"
	"time"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/form"
)

// versionPage shows a form's settings as one version left them, how they
// differ from the current ones, and the button that restores them.
type versionPage struct {
	Form formHeader
	// Version is the version shown, Current the form's version now.
	Version, Current int
	What             string
	Actor, ActorKind string
	At               time.Time
	// Settings are every setting at Version, as the audit trail writes values.
	Settings []auditChange
	// Differences are the settings that differ from Version to now: From
	// is the value at Version, To the current one.
	Differences []auditChange
}

// versionOf reads the version path value; anything but a positive number
// is a version no form has.
func versionOf(r *http.Request) (int, bool) {
	n, err := strconv.Atoi(r.PathValue("version"))
	return n, err == nil && n > 0
}

func (s *Server) showVersion(w http.ResponseWriter, r *http.Request, v *visitor) {
	s.renderVersion(w, r, v, http.StatusOK, "")
}

// renderVersion draws the version page, with alert when a restore was
// refused.
func (s *Server) renderVersion(w http.ResponseWriter, r *http.Request, v *visitor, status int, alert string) {
	f, ok := s.loadForm(w, r, v, "Audit trail")
	if !ok {
		return
	}
	n, ok := versionOf(r)
	if !ok {
		s.errorPage(w, r, http.StatusNotFound, "")
		return
	}
	at, err := s.app.Queries.FormVersion.Handle(r.Context(), application.FormVersion{Caller: v.Session, FormID: f.ID, Version: n})
	if err != nil {
		s.failed(w, r, err)
		return
	}
	differences, err := s.app.Queries.CompareFormVersions.Handle(r.Context(),
		application.CompareFormVersions{Caller: v.Session, FormID: f.ID, From: n, To: f.Version})
	if err != nil {
		s.failed(w, r, err)
		return
	}
	entry := timelineOf([]application.HistoryEntry{at.Entry})[0]
	page := versionPage{Form: f, Version: n, Current: f.Version, What: entry.What, Actor: entry.Actor, ActorKind: entry.ActorKind, At: entry.At,
		Settings:    shownChanges(form.Diff(form.Settings{}, at.Form.Settings, true)),
		Differences: shownChanges(differences)}
	s.render(w, r, status, "form-version", view{Title: f.Name + ": settings as of version " + strconv.Itoa(n), Section: "forms",
		Visitor: v, Alert: alert, Data: page})
}

// restoreVersion restores a version's settings through the same command as
// POST /v1/forms/{formId}/restore; a setting the plan no longer allows is
// shown on the version's page.
func (s *Server) restoreVersion(w http.ResponseWriter, r *http.Request, v *visitor) {
	id, ok := formIDOf(r)
	n, okVersion := versionOf(r)
	if !ok || !okVersion {
		s.errorPage(w, r, http.StatusNotFound, "")
		return
	}
	_, err := s.app.Commands.RestoreFormVersion.Handle(r.Context(), application.RestoreFormVersion{
		Caller: v.Session, RequestID: requestIDOf(r), Language: s.requestLanguage(r), FormID: id, Version: n})
	if err != nil {
		if problems, isProblem := formProblem(err, nil); isProblem {
			s.renderVersion(w, r, v, http.StatusBadRequest, "This version cannot be restored: "+problems[""])
			return
		}
		s.failed(w, r, err)
		return
	}
	http.Redirect(w, r, Prefix+"/forms/"+id+"/audit?notice=settings-restored", http.StatusSeeOther)
}

// shownChanges writes changes for people as the audit trail does; a value
// the settings hold empty is kept, as a dash, since a list of settings
// tells each one.
func shownChanges(changes []form.Change) []auditChange {
	out := make([]auditChange, 0, len(changes))
	for _, c := range changes {
		out = append(out, shownChange(c))
	}
	return out
}
