package httpapi

import (
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/submission"
	"github.com/formd/formd/ports/portkit"
)

// deliveryEventJSON is one event of a delivery's stream (schema
// DeliveryEvent): queued, an attempt's outcome, or a manual retry.
type deliveryEventJSON struct {
	Type       string            `json:"type"`
	Version    int               `json:"version"`
	RecordedAt time.Time         `json:"recordedAt"`
	Actor      application.Actor `json:"actor"`
	RequestID  string            `json:"requestId,omitempty"`
	Attempt    int               `json:"attempt,omitempty"`
	Error      string            `json:"error,omitempty"`
	NextAt     *time.Time        `json:"nextAttemptAt,omitempty"`
	SpamCheck  string            `json:"spamCheck,omitempty"`
}

func presentDeliveryEvent(e application.HistoryEntry) deliveryEventJSON {
	out := deliveryEventJSON{Type: e.Type, Version: e.Version, RecordedAt: e.RecordedAt.UTC(),
		Actor: e.Metadata.Actor, RequestID: e.Metadata.RequestID}
	switch ev := e.Event.(type) {
	case delivery.Succeeded:
		out.Attempt = ev.Attempt
	case delivery.AttemptFailed:
		out.Attempt, out.Error, out.NextAt = ev.Attempt, ev.Reason, portkit.UTC(&ev.NextAt)
	case delivery.GaveUp:
		out.Attempt, out.Error = ev.Attempts, ev.Reason
	case submission.Accepted:
		out.SpamCheck = ev.SpamCheck
	}
	return out
}

// deliveryPageJSON is a page of the log; NextCursor is absent on the last.
type deliveryPageJSON struct {
	Deliveries []portkit.Delivery `json:"deliveries"`
	NextCursor string             `json:"nextCursor,omitempty"`
}

func (s *Server) listDeliveries(c *gin.Context) {
	id, ok := s.formID(c)
	if !ok {
		return
	}
	q := application.ListDeliveries{Caller: sessionOf(c), FormID: id, Kind: c.Query("kind"), State: c.Query("state")}
	if raw, set := c.GetQuery("limit"); set {
		n, err := strconv.Atoi(raw)
		if err != nil || n < 1 {
			s.respondError(c, domain.Invalid("limit", "limit must be between 1 and %d", application.MaxDeliveryPage))
			return
		}
		q.Limit = n
	}
	if raw := c.Query("cursor"); raw != "" {
		after, err := portkit.DecodeDeliveryCursor(raw)
		if err != nil {
			s.respondError(c, err)
			return
		}
		q.After = after
	}
	page, err := s.app.Queries.ListDeliveries.Handle(c.Request.Context(), q)
	if err != nil {
		s.respondError(c, err)
		return
	}
	out := deliveryPageJSON{Deliveries: make([]portkit.Delivery, len(page.Deliveries))}
	for i, d := range page.Deliveries {
		out.Deliveries[i] = portkit.PresentDelivery(d)
	}
	if page.Next != nil {
		out.NextCursor = portkit.EncodeDeliveryCursor(*page.Next)
	}
	c.JSON(http.StatusOK, out)
}

// deliveryID is the path's delivery id; anything but a UUID is not found.
func (s *Server) deliveryID(c *gin.Context) (string, bool) { return s.uuidParam(c, "deliveryId") }

func (s *Server) getDelivery(c *gin.Context) {
	id, ok := s.deliveryID(c)
	if !ok {
		return
	}
	d, err := s.app.Queries.DeliveryDetails.Handle(c.Request.Context(), application.DeliveryDetails{Caller: sessionOf(c), DeliveryID: id})
	if err != nil {
		s.respondError(c, err)
		return
	}
	events := make([]deliveryEventJSON, len(d.Events))
	for i, e := range d.Events {
		events[i] = presentDeliveryEvent(e)
	}
	c.JSON(http.StatusOK, gin.H{"delivery": portkit.PresentDelivery(d.Delivery), "events": events})
}

func (s *Server) retryDelivery(c *gin.Context) {
	id, ok := s.deliveryID(c)
	if !ok {
		return
	}
	d, err := s.app.Commands.RetryDelivery.Handle(c.Request.Context(),
		application.RetryDelivery{Caller: sessionOf(c), RequestID: requestIDOf(c), DeliveryID: id})
	if err != nil {
		s.respondError(c, err)
		return
	}
	c.JSON(http.StatusAccepted, gin.H{"delivery": portkit.PresentDelivery(d)})
}
