package httpapi

import (
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/delivery"
)

// deliveryJSON is one delivery of the log (schema Delivery). Target is the
// recipient's domain or the webhook's host, never an address or URL.
type deliveryJSON struct {
	ID            string     `json:"id"`
	FormID        string     `json:"formId"`
	Kind          string     `json:"kind"`
	Target        string     `json:"target"`
	State         string     `json:"state"`
	Attempts      int        `json:"attempts"`
	LastError     string     `json:"lastError"`
	NextAttemptAt *time.Time `json:"nextAttemptAt"`
	CreatedAt     time.Time  `json:"createdAt"`
	FinishedAt    *time.Time `json:"finishedAt"`
}

func presentDelivery(r application.DeliveryRecord) deliveryJSON {
	return deliveryJSON{ID: r.ID, FormID: r.FormID, Kind: delivery.PublicKind(r.Kind), Target: r.Target, State: r.State,
		Attempts: r.Attempts, LastError: r.LastError, NextAttemptAt: utc(r.NextAttemptAt), CreatedAt: r.CreatedAt.UTC(),
		FinishedAt: utc(r.FinishedAt)}
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

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
}

func presentDeliveryEvent(e application.HistoryEntry) deliveryEventJSON {
	out := deliveryEventJSON{Type: e.Type, Version: e.Version, RecordedAt: e.RecordedAt.UTC(),
		Actor: e.Metadata.Actor, RequestID: e.Metadata.RequestID}
	switch ev := e.Event.(type) {
	case delivery.Succeeded:
		out.Attempt = ev.Attempt
	case delivery.AttemptFailed:
		out.Attempt, out.Error, out.NextAt = ev.Attempt, ev.Reason, utc(&ev.NextAt)
	case delivery.GaveUp:
		out.Attempt, out.Error = ev.Attempts, ev.Reason
	}
	return out
}

// deliveryPageJSON is a page of the log; NextCursor is absent on the last.
type deliveryPageJSON struct {
	Deliveries []deliveryJSON `json:"deliveries"`
	NextCursor string         `json:"nextCursor,omitempty"`
}

// encodeCursor makes a page's position opaque: callers pass it back as it is.
func encodeCursor(c application.DeliveryCursor) string {
	return base64.RawURLEncoding.EncodeToString([]byte(c.CreatedAt.UTC().Format(time.RFC3339Nano) + "|" + c.ID))
}

func decodeCursor(s string) (*application.DeliveryCursor, error) {
	bad := domain.Invalid("cursor", "cursor is not one this API gave out; pass nextCursor unchanged")
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, bad
	}
	at, id, ok := strings.Cut(string(raw), "|")
	t, err := time.Parse(time.RFC3339Nano, at)
	if !ok || err != nil || uuid.Validate(id) != nil {
		return nil, bad
	}
	return &application.DeliveryCursor{CreatedAt: t, ID: id}, nil
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
		after, err := decodeCursor(raw)
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
	out := deliveryPageJSON{Deliveries: make([]deliveryJSON, len(page.Deliveries))}
	for i, d := range page.Deliveries {
		out.Deliveries[i] = presentDelivery(d)
	}
	if page.Next != nil {
		out.NextCursor = encodeCursor(*page.Next)
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
	c.JSON(http.StatusOK, gin.H{"delivery": presentDelivery(d.Delivery), "events": events})
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
	c.JSON(http.StatusAccepted, gin.H{"delivery": presentDelivery(d)})
}
