package httpapi

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/ports/portkit"
)

// accountJSON is GET /v1/account's account: who it is, what it is on and
// holds, and what it has used this month.
type accountJSON struct {
	ID            string    `json:"id"`
	Email         string    `json:"email"`
	EmailVerified bool      `json:"emailVerified"`
	Plan          string    `json:"plan"`
	Entitlements  []string  `json:"entitlements"`
	Grants        []string  `json:"grants"`
	Usage         usageJSON `json:"usage"`
}

// usageJSON is one month's live submissions against the plan's quota.
type usageJSON struct {
	Month     string    `json:"month"`
	Used      int       `json:"used"`
	Quota     int       `json:"quota"`
	Remaining int       `json:"remaining"`
	ResetsAt  time.Time `json:"resetsAt"`
}

func (s *Server) getAccount(c *gin.Context) {
	a, err := s.app.Queries.AccountOverview.Handle(c.Request.Context(), application.AccountOverview{Caller: sessionOf(c)})
	if err != nil {
		s.respondError(c, err)
		return
	}
	c.JSON(http.StatusOK, gin.H{"account": presentAccount(a)})
}

func presentAccount(a application.AccountSummary) accountJSON {
	u := a.Usage
	return accountJSON{
		ID: a.ID, Email: a.Email, EmailVerified: a.EmailVerified, Plan: string(a.Plan),
		Entitlements: portkit.NonNil(a.Entitlements), Grants: portkit.NonNil(a.Grants),
		Usage: usageJSON{Month: u.Month.String(), Used: u.Used, Quota: u.Quota, Remaining: u.Remaining(), ResetsAt: u.ResetsAt()},
	}
}

func (s *Server) accountEvents(c *gin.Context) {
	history, err := s.app.Queries.AccountHistory.Handle(c.Request.Context(), application.AccountHistory{Caller: sessionOf(c)})
	if err != nil {
		s.respondError(c, err)
		return
	}
	out := make([]historyJSON, len(history))
	for i, e := range history {
		out[i] = presentHistoryEntry(e, accountChangesOf(e))
	}
	c.JSON(http.StatusOK, gin.H{"events": out})
}

// accountChangesOf says what an account event changed. A password (even its
// hash) never appears: a reset shows no change, only its type.
func accountChangesOf(e application.HistoryEntry) []changeJSON {
	change := func(field string, from, to any) changeJSON {
		f, _ := json.Marshal(from)
		t, _ := json.Marshal(to)
		return changeJSON{Field: field, From: f, To: t}
	}
	switch ev := e.Event.(type) {
	case account.Registered:
		out := []changeJSON{change("email", nil, ev.Email)}
		if ev.Name != "" {
			out = append(out, change("name", nil, ev.Name))
		}
		return append(out, change("workspaces."+ev.WorkspaceID, nil, ev.WorkspaceName))
	case account.EmailVerified:
		return []changeJSON{change("emailVerified", false, true)}
	case account.WorkspaceCreated:
		return []changeJSON{change("workspaces."+ev.WorkspaceID, nil, ev.Name)}
	case account.FeatureGranted:
		return []changeJSON{change("grants."+ev.Feature, false, true)}
	case account.FeatureRevoked:
		return []changeJSON{change("grants."+ev.Feature, true, false)}
	case account.PlanChanged:
		return []changeJSON{change("plan", ev.Previous, ev.Plan)}
	}
	return []changeJSON{}
}
