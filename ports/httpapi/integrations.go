package httpapi

import (
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/ports/portkit"
)

// integrationJSON is the API's Integration. Settings a type does not use
// are left out; a webhook shows its secret's prefix, and its secret only
// in the answer of the call that made it.
type integrationJSON struct {
	Type          string  `json:"type"`
	Enabled       bool    `json:"enabled"`
	TargetURL     *string `json:"targetUrl,omitempty"`
	ChatID        *string `json:"chatId,omitempty"`
	SpreadsheetID *string `json:"spreadsheetId,omitempty"`
	SheetName     *string `json:"sheetName,omitempty"`
	SecretPrefix  *string `json:"secretPrefix,omitempty"`
	Secret        string  `json:"secret,omitempty"`
	// Connect is a Telegram integration's one-time connect code, in the
	// answer of the call that issued it.
	Connect *connectJSON `json:"connect,omitempty"`
	// SheetProven and Proof are a Google Sheets integration's: whether
	// its spreadsheet is proven, and while not, the code to write where.
	SheetProven *bool      `json:"sheetProven,omitempty"`
	Proof       *proofJSON `json:"proof,omitempty"`
	CreatedAt   time.Time  `json:"createdAt"`
	UpdatedAt   time.Time  `json:"updatedAt"`
}

// connectJSON tells how to connect a Telegram chat: send command to the
// bot from the chat (or open url, or groupUrl to add the bot to a group)
// before expiresAt.
type connectJSON struct {
	Code      string    `json:"code"`
	Command   string    `json:"command"`
	URL       string    `json:"url,omitempty"`
	GroupURL  string    `json:"groupUrl,omitempty"`
	ExpiresAt time.Time `json:"expiresAt"`
}

// proofJSON is a Google Sheets proof: write code in range (cell A1 of a
// sheet named formd), then save the integration again.
type proofJSON struct {
	Code  string `json:"code"`
	Range string `json:"range"`
}

func presentIntegration(r application.IntegrationRecord) integrationJSON {
	out := integrationJSON{Type: string(r.Type), Enabled: r.Enabled, Secret: r.Secret, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
	if c := r.Connect; c != nil {
		out.Connect = &connectJSON{Code: c.Code, Command: c.Command, URL: c.URL, GroupURL: c.GroupURL, ExpiresAt: c.ExpiresAt}
	}
	switch r.Type {
	case form.IntegrationWebhook:
		out.TargetURL, out.SecretPrefix = &r.TargetURL, &r.SecretPrefix
	case form.IntegrationSlack, form.IntegrationDiscord:
		out.TargetURL = &r.TargetURL
	case form.IntegrationTelegram:
		out.ChatID = &r.ChatID
	case form.IntegrationGoogleSheets:
		out.SpreadsheetID, out.SheetName, out.SheetProven = &r.SpreadsheetID, &r.SheetName, &r.SheetProven
		if r.Proof != nil {
			out.Proof = &proofJSON{Code: r.Proof.Code, Range: r.Proof.Range}
		}
	}
	return out
}

// integrationUpdate is the spec's IntegrationUpdate: every field optional,
// a missing or null one keeps its value. chatId is read only to be refused
// (the form aggregate says why) unless empty, which disconnects the chat.
type integrationUpdate struct {
	Enabled       *bool   `json:"enabled"`
	TargetURL     *string `json:"targetUrl"`
	ChatID        *string `json:"chatId"`
	SpreadsheetID *string `json:"spreadsheetId"`
	SheetName     *string `json:"sheetName"`
}

func (s *Server) listIntegrations(c *gin.Context) {
	id, ok := s.formID(c)
	if !ok {
		return
	}
	list, err := s.app.Queries.ListIntegrations.Handle(c.Request.Context(), application.ListIntegrations{Caller: sessionOf(c), FormID: id})
	if err != nil {
		s.respondError(c, err)
		return
	}
	out := make([]integrationJSON, len(list))
	for i, r := range list {
		out[i] = presentIntegration(r)
	}
	c.JSON(http.StatusOK, gin.H{"integrations": out})
}

func (s *Server) configureIntegration(c *gin.Context) {
	id, ok := s.formID(c)
	if !ok {
		return
	}
	typ, err := form.ParseIntegrationType(c.Param("type"))
	if err != nil {
		s.respondError(c, err)
		return
	}
	var req integrationUpdate
	if !s.decodeJSON(c, &req) {
		return
	}
	rec, err := s.app.Commands.ConfigureIntegration.Handle(c.Request.Context(), application.ConfigureIntegration{
		Caller: sessionOf(c), RequestID: requestIDOf(c), FormID: id, Type: typ,
		Patch: form.IntegrationPatch(req),
	})
	if err != nil {
		s.respondError(c, err)
		return
	}
	s.respondIntegration(c, rec)
}

func (s *Server) rotateWebhookSecret(c *gin.Context) {
	id, ok := s.formID(c)
	if !ok {
		return
	}
	rec, err := s.app.Commands.RotateWebhookSecret.Handle(c.Request.Context(),
		application.RotateWebhookSecret{Caller: sessionOf(c), RequestID: requestIDOf(c), FormID: id})
	if err != nil {
		s.respondError(c, err)
		return
	}
	s.respondIntegration(c, rec)
}

// testIntegration queues a sample delivery to the integration: 201 with the
// delivery, whose outcome the delivery log shows.
func (s *Server) testIntegration(c *gin.Context) {
	id, ok := s.formID(c)
	if !ok {
		return
	}
	typ, err := form.ParseIntegrationType(c.Param("type"))
	if err != nil {
		s.respondError(c, err)
		return
	}
	rec, err := s.app.Commands.TestIntegration.Handle(c.Request.Context(), application.TestIntegration{
		Caller: sessionOf(c), RequestID: requestIDOf(c), FormID: id, Type: typ,
	})
	if err != nil {
		s.respondError(c, err)
		return
	}
	c.JSON(http.StatusCreated, gin.H{"delivery": portkit.PresentDelivery(rec)})
}

// integrationAcknowledgement answers a change made by a credential that
// may write forms but not read them: that the change is saved, and what
// that one answer alone carries (a new webhook signing secret, a Telegram
// connect code, a spreadsheet's proof code), not the settings.
type integrationAcknowledgement struct {
	Type      string       `json:"type"`
	Secret    string       `json:"secret,omitempty"`
	Connect   *connectJSON `json:"connect,omitempty"`
	Proof     *proofJSON   `json:"proof,omitempty"`
	UpdatedAt time.Time    `json:"updatedAt"`
}

// respondIntegration answers with one integration, or an acknowledgement
// to a caller that may not read forms; an answer carrying a secret or a
// connect code must not be kept by any cache.
func (s *Server) respondIntegration(c *gin.Context, rec application.IntegrationRecord) {
	if rec.Secret != "" || rec.Connect != nil {
		c.Header("Cache-Control", "no-store")
	}
	if !sessionOf(c).ReadsForms() {
		full := presentIntegration(rec)
		c.JSON(http.StatusOK, gin.H{"integration": integrationAcknowledgement{Type: string(rec.Type), Secret: rec.Secret,
			Connect: full.Connect, Proof: full.Proof, UpdatedAt: rec.UpdatedAt}})
		return
	}
	c.JSON(http.StatusOK, gin.H{"integration": presentIntegration(rec)})
}
