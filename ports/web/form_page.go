package web

import (
	"net/http"
	"time"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/ports/portkit"
)

// formIDOf reads the form id of the path, lower-cased; anything but a UUID
// is not found, as an unknown id is.
func formIDOf(r *http.Request) (string, bool) {
	return portkit.ID(r.PathValue("formID"))
}

// tab is one entry of a form's tabs; a tab without Path is still to come.
type tab struct {
	Label, Path string
	Current     bool
	// Count is what the tab holds, shown beside its label when above 0
	// (the Spam tab's held submissions).
	Count int
}

// formHeader is what every page of one form shows above its tab.
type formHeader struct {
	ID, Name, Recipient, KeyPrefix string
	RecipientVerified              bool
	AllowedDomains                 []string
	CreatedAt                      time.Time
	Tabs                           []tab
	// Settings are all of the form's settings, for the Settings tab.
	Settings form.Settings
	// Version is the form's version: how many events its stream holds.
	Version int
	// VerifiedRoutes are the routing recipients whose own link was followed.
	VerifiedRoutes []string
}

// formTabs lists a form's pages; a tab without a path would be announced,
// not linked. Submissions is a tab while the form's archive is on: its
// pages still answer when it is off, for what the archive keeps until its
// retention ends. Spam is a tab whatever the mode, counting held
// submissions: a form out of hold mode may still hold some.
func formTabs(formID, current string, archive bool, held int) []tab {
	base := Prefix + "/forms/" + formID
	tabs := []tab{
		{Label: "Overview", Path: base},
		{Label: "Audit trail", Path: base + "/audit"},
		{Label: "Settings", Path: base + "/settings"}, {Label: "Integrations", Path: base + "/integrations"},
	}
	if archive {
		tabs = append(tabs, tab{Label: "Submissions", Path: base + "/submissions"})
	}
	tabs = append(tabs, tab{Label: "Spam", Path: base + "/spam", Count: held})
	tabs = append(tabs, tab{Label: "Deliveries", Path: base + "/deliveries"}, tab{Label: "Playground", Path: base + "/playground"},
		tab{Label: "Test inbox", Path: base + "/test-inbox"})
	for i := range tabs {
		tabs[i].Current = tabs[i].Label == current
	}
	return tabs
}

// loadForm finds the caller's form, or answers 404 itself (another
// account's form included).
func (s *Server) loadForm(w http.ResponseWriter, r *http.Request, v *visitor, current string) (formHeader, bool) {
	id, ok := formIDOf(r)
	if !ok {
		s.errorPage(w, r, http.StatusNotFound, "")
		return formHeader{}, false
	}
	// ListForms is the query that shows one's forms; it never shows another
	// account's, so a form missing from it is a 404.
	forms, err := s.app.Queries.ListForms.Handle(r.Context(), application.ListForms{Caller: v.Session})
	if err != nil {
		s.failed(w, r, err)
		return formHeader{}, false
	}
	for _, f := range forms {
		if f.ID != id {
			continue
		}
		// Counting opens no submission, so it needs no more than the page.
		held, err := s.app.Commands.SpamFolder.Count(r.Context(), v.Session, f.ID)
		if err != nil {
			s.failed(w, r, err)
			return formHeader{}, false
		}
		return formHeader{ID: f.ID, Name: f.Settings.Name, Recipient: f.Settings.RecipientEmail, KeyPrefix: f.AccessKeyPrefix,
			RecipientVerified: f.RecipientVerified, AllowedDomains: f.Settings.AllowedDomains, CreatedAt: f.CreatedAt,
			Tabs: formTabs(f.ID, current, f.Settings.Archive.Enabled, held), Settings: f.Settings, Version: f.Version,
			VerifiedRoutes: f.VerifiedRoutes}, true
	}
	s.errorPage(w, r, http.StatusNotFound, "")
	return formHeader{}, false
}

// formOverview is a form's first tab.
type formOverview struct {
	Form     formHeader
	Snippets snippets
}

func (s *Server) showForm(w http.ResponseWriter, r *http.Request, v *visitor) {
	f, ok := s.loadForm(w, r, v, "Overview")
	if !ok {
		return
	}
	page := formOverview{Form: f, Snippets: s.snippetsFor(f.KeyPrefix + "…")}
	s.render(w, r, http.StatusOK, "form", view{Title: f.Name, Section: "forms", Visitor: v, Data: page})
}
