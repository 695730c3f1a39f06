package httpapi

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/ports/portkit"
)

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
	out := make([]portkit.Integration, len(list))
	for i, r := range list {
		out[i] = portkit.PresentIntegration(r)
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

// respondIntegration answers with one integration, or an acknowledgement
// to a caller that may not read forms; an answer carrying a secret or a
// connect code must not be kept by any cache.
func (s *Server) respondIntegration(c *gin.Context, rec application.IntegrationRecord) {
	if rec.Secret != "" || rec.Connect != nil {
		c.Header("Cache-Control", "no-store")
	}
	if !sessionOf(c).ReadsForms() {
		c.JSON(http.StatusOK, gin.H{"integration": portkit.PresentIntegration(rec).Saved()})
		return
	}
	c.JSON(http.StatusOK, gin.H{"integration": portkit.PresentIntegration(rec)})
}
