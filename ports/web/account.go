package web

import (
	"net/http"
	"time"

	"github.com/formd/formd/application"
)

// accountPage is the account's plan, features and this month's usage.
type accountPage struct {
	Email         string
	EmailVerified bool
	Plan          string
	Entitlements  []string
	Grants        map[string]bool
	Month         string
	Used, Quota   int
	Remaining     int
	ResetsAt      time.Time
	// History is the account's audit trail, newest first.
	History []auditEntry
}

func (s *Server) showAccount(w http.ResponseWriter, r *http.Request, v *visitor) {
	a, err := s.app.Queries.AccountOverview.Handle(r.Context(), application.AccountOverview{Caller: v.Session})
	if err != nil {
		s.failed(w, r, err)
		return
	}
	page := accountPage{Email: a.Email, EmailVerified: a.EmailVerified, Plan: string(a.Plan), Entitlements: a.Entitlements,
		Grants: map[string]bool{}, Month: a.Usage.Month.Start().Format("January 2006"), Used: a.Usage.Used,
		Quota: a.Usage.Quota, Remaining: a.Usage.Remaining(), ResetsAt: a.Usage.ResetsAt()}
	for _, g := range a.Grants {
		page.Grants[g] = true
	}
	history, err := s.app.Queries.AccountHistory.Handle(r.Context(), application.AccountHistory{Caller: v.Session})
	if err != nil {
		s.failed(w, r, err)
		return
	}
	page.History = timelineOf(history)
	s.render(w, r, http.StatusOK, "account", view{Title: "Account", Section: "account", Visitor: v, Data: page})
}
