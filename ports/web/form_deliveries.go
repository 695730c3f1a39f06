package web

import (
	"net/http"
	"time"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/submission"
	"github.com/formd/formd/ports/portkit"
)

// deliveryRow is one delivery as the log and its page show it.
type deliveryRow struct {
	ID, Kind, Target, State, LastError string
	Attempts                           int
	CreatedAt                          time.Time
	NextAttemptAt, FinishedAt          *time.Time
	// SpamNote says the submission was judged by the spam rules alone,
	// the classifier having given no verdict; blank otherwise.
	SpamNote string
	// RouteNote says why a routed submission's notification went to the
	// primary recipient; blank otherwise.
	RouteNote string
}

func rowOf(d application.DeliveryRecord) deliveryRow {
	row := deliveryRow{ID: d.ID, Kind: delivery.PublicKind(d.Kind), Target: d.Target, State: d.State, LastError: d.LastError,
		Attempts: d.Attempts, CreatedAt: d.CreatedAt, NextAttemptAt: d.NextAttemptAt, FinishedAt: d.FinishedAt, RouteNote: d.Note}
	if d.SpamCheck == submission.SpamCheckUnavailable {
		row.SpamNote = submission.MsgSpamCheckUnavailable
	}
	return row
}

// deliveryFilter is the log's filter, as chosen.
type deliveryFilter struct {
	State, Kind string
	Errors      fieldErrors
}

// deliveriesPage is the Deliveries tab: the log, newest first, a page at a time.
type deliveriesPage struct {
	Form       formHeader
	Filter     deliveryFilter
	States     []string
	Kinds      []string
	Deliveries []deliveryRow
	// Older is the address of the next page; empty on the last.
	Older string
}

// deliveryStates and deliveryKinds are the filter's choices, as the API
// names them (GET /v1/forms/{formId}/deliveries).
var (
	deliveryStates = []string{delivery.StateQueued, delivery.StateRetrying, delivery.StateSucceeded, delivery.StateFailed}
	deliveryKinds  = []string{"notification", "autoresponder", "webhook", "slack", "discord", "recipient_verification"}
)

func (s *Server) showDeliveries(w http.ResponseWriter, r *http.Request, v *visitor) {
	f, ok := s.loadForm(w, r, v, "Deliveries")
	if !ok {
		return
	}
	query := r.URL.Query()
	page := deliveriesPage{Form: f, States: deliveryStates, Kinds: deliveryKinds,
		Filter: deliveryFilter{State: query.Get("state"), Kind: query.Get("kind")}}
	q := application.ListDeliveries{Caller: v.Session, FormID: f.ID, State: page.Filter.State, Kind: page.Filter.Kind}
	if raw := query.Get("after"); raw != "" {
		after, err := portkit.DecodeDeliveryCursor(raw)
		if err != nil {
			s.errorPage(w, r, http.StatusBadRequest, "That page of the log does not exist. Go back to the first page.")
			return
		}
		q.After = after
	}
	found, err := s.app.Queries.ListDeliveries.Handle(r.Context(), q)
	if err != nil {
		problems, ok := formProblem(err, map[string]string{"state": "state", "kind": "kind"})
		if !ok {
			s.failed(w, r, err)
			return
		}
		page.Filter.Errors = problems
		s.render(w, r, http.StatusBadRequest, "form-deliveries", view{Title: f.Name + ": deliveries", Section: "forms", Visitor: v,
			Alert: problems[""], Data: page})
		return
	}
	for _, d := range found.Deliveries {
		page.Deliveries = append(page.Deliveries, rowOf(d))
	}
	if found.Next != nil {
		older := r.URL.Query()
		older.Set("after", portkit.EncodeDeliveryCursor(*found.Next))
		page.Older = Prefix + "/forms/" + f.ID + "/deliveries?" + older.Encode()
	}
	s.render(w, r, http.StatusOK, "form-deliveries", view{Title: f.Name + ": deliveries", Section: "forms", Visitor: v, Data: page})
}

// deliveryEvent is one event of a delivery's stream, for people.
type deliveryEvent struct {
	What, Actor, RequestID, Error string
	Attempt                       int
	At                            time.Time
	NextAt                        *time.Time
}

// deliveryEventLabels name a delivery's event types.
var deliveryEventLabels = map[string]string{
	delivery.QueuedType:         "Queued",
	submission.AcceptedType:     "Queued", // by the submission itself
	delivery.SucceededType:      "Delivered",
	delivery.FailedType:         "Attempt failed, will retry",
	delivery.GaveUpType:         "Failed",
	delivery.RetryRequestedType: "Retry requested",
}

// deliveryPage is one delivery with its attempts.
type deliveryPage struct {
	Form     formHeader
	Delivery deliveryRow
	Events   []deliveryEvent
	// Retryable says whether to offer the retry button.
	Retryable bool
}

// deliveryIDOf reads the delivery id of the path; false for anything but a UUID.
func deliveryIDOf(r *http.Request) (string, bool) {
	return portkit.ID(r.PathValue("deliveryID"))
}

func (s *Server) showDelivery(w http.ResponseWriter, r *http.Request, v *visitor) {
	s.drawDelivery(w, r, v, http.StatusOK, notices[r.URL.Query().Get("notice")], "")
}

// drawDelivery shows the delivery of the path, with notice or alert above
// it; a delivery of another form (or account) is not found.
func (s *Server) drawDelivery(w http.ResponseWriter, r *http.Request, v *visitor, status int, notice, alert string) {
	f, ok := s.loadForm(w, r, v, "Deliveries")
	if !ok {
		return
	}
	id, ok := deliveryIDOf(r)
	if !ok {
		s.errorPage(w, r, http.StatusNotFound, "")
		return
	}
	d, err := s.app.Queries.DeliveryDetails.Handle(r.Context(), application.DeliveryDetails{Caller: v.Session, DeliveryID: id})
	if err != nil {
		s.failed(w, r, err)
		return
	}
	if d.Delivery.FormID != f.ID {
		s.errorPage(w, r, http.StatusNotFound, "")
		return
	}
	page := deliveryPage{Form: f, Delivery: rowOf(d.Delivery), Retryable: d.Delivery.State == delivery.StateFailed}
	for _, e := range d.Events {
		ev := deliveryEvent{What: deliveryEventLabels[e.Type], At: e.RecordedAt, RequestID: e.Metadata.RequestID,
			Actor: actorLabels[e.Metadata.Actor.Type]}
		if ev.What == "" {
			ev.What = e.Type
		}
		switch x := e.Event.(type) {
		case delivery.Succeeded:
			ev.Attempt = x.Attempt
		case delivery.AttemptFailed:
			next := x.NextAt
			ev.Attempt, ev.Error, ev.NextAt = x.Attempt, x.Reason, &next
		case delivery.GaveUp:
			ev.Attempt, ev.Error = x.Attempts, x.Reason
		case submission.Accepted:
			if x.SpamCheck == submission.SpamCheckUnavailable {
				ev.What += " (" + submission.MsgSpamCheckUnavailable + ": judged by the spam rules alone)"
			}
		}
		page.Events = append(page.Events, ev)
	}
	s.render(w, r, status, "form-delivery", view{Title: f.Name + ": delivery", Section: "forms", Visitor: v,
		Notice: notice, Alert: alert, Data: page})
}

// retryDelivery re-queues a failed delivery through the same command as
// POST /v1/deliveries/{deliveryId}/retry; a refusal is shown on the
// delivery's page.
func (s *Server) retryDelivery(w http.ResponseWriter, r *http.Request, v *visitor) {
	f, ok := s.loadForm(w, r, v, "Deliveries")
	if !ok {
		return
	}
	id, ok := deliveryIDOf(r)
	if !ok {
		s.errorPage(w, r, http.StatusNotFound, "")
		return
	}
	// The delivery must be this form's: the path says so, and a retry of
	// another form's delivery from here would be a confusing success.
	d, err := s.app.Queries.DeliveryDetails.Handle(r.Context(), application.DeliveryDetails{Caller: v.Session, DeliveryID: id})
	if err == nil && d.Delivery.FormID != f.ID {
		s.errorPage(w, r, http.StatusNotFound, "")
		return
	}
	if err == nil {
		_, err = s.app.Commands.RetryDelivery.Handle(r.Context(), application.RetryDelivery{Caller: v.Session,
			RequestID: requestIDOf(r), DeliveryID: id})
	}
	if err != nil {
		if problems, ok := formProblem(err, nil); ok {
			s.drawDelivery(w, r, v, http.StatusBadRequest, "", problems[""])
			return
		}
		s.failed(w, r, err)
		return
	}
	http.Redirect(w, r, Prefix+"/forms/"+f.ID+"/deliveries/"+id+"?notice=delivery-retried", http.StatusSeeOther)
}
