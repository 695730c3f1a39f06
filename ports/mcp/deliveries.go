package mcp

import (
	"context"
	"encoding/base64"
	"strings"
	"time"

	"github.com/google/uuid"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/delivery"
)

// deliveryShape is one delivery of the log (the API's Delivery). Target is
// the recipient's domain or the receiver's host, never an address or URL.
type deliveryShape struct {
	ID            string     `json:"id"`
	FormID        string     `json:"formId"`
	Kind          string     `json:"kind" jsonschema:"notification, autoresponder, webhook, slack, discord, telegram, google_sheets or recipient_verification"`
	Target        string     `json:"target"`
	State         string     `json:"state" jsonschema:"queued, retrying, succeeded or failed"`
	Attempts      int        `json:"attempts"`
	LastError     string     `json:"lastError"`
	NextAttemptAt *time.Time `json:"nextAttemptAt"`
	CreatedAt     time.Time  `json:"createdAt"`
	FinishedAt    *time.Time `json:"finishedAt"`
}

func presentDelivery(r application.DeliveryRecord) deliveryShape {
	return deliveryShape{ID: r.ID, FormID: r.FormID, Kind: delivery.PublicKind(r.Kind), Target: r.Target, State: r.State,
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

type listDeliveriesInput struct {
	FormID string `json:"formId" jsonschema:"the form's id"`
	Kind   string `json:"kind,omitempty" jsonschema:"only deliveries of this kind (notification, webhook, recipient_verification…)"`
	State  string `json:"state,omitempty" jsonschema:"only deliveries in this state: queued, retrying, succeeded or failed"`
	Limit  int    `json:"limit,omitempty" jsonschema:"at most this many, 1 to 200 (default 50)"`
	Cursor string `json:"cursor,omitempty" jsonschema:"the nextCursor of the previous page, unchanged"`
}

type deliveriesOutput struct {
	Deliveries []deliveryShape `json:"deliveries" jsonschema:"newest first"`
	NextCursor string          `json:"nextCursor,omitempty" jsonschema:"pass it as cursor for the next page; absent on the last page"`
}

type deliveryIDInput struct {
	DeliveryID string `json:"deliveryId" jsonschema:"the delivery's id, as list_deliveries gives it"`
}

type deliveryOutput struct {
	Delivery deliveryShape `json:"delivery"`
}

func (s *Server) deliveryTools(srv *sdk.Server) {
	addTool(s, srv, &sdk.Tool{Name: "list_deliveries", Title: "List a form's deliveries", Annotations: readOnly,
		Description: "Lists a form's delivery log, newest first: every notification email, autoresponder, webhook, chat " +
			"message, Sheets row, verification email and integration test, with its state, attempts and last error. Needs forms:read."},
		func(ctx context.Context, caller application.Session, in listDeliveriesInput) (deliveriesOutput, error) {
			id, err := idOf(in.FormID)
			if err != nil {
				return deliveriesOutput{}, err
			}
			if in.Limit < 0 {
				return deliveriesOutput{}, domain.Invalid("limit", "limit must be between 1 and %d", application.MaxDeliveryPage)
			}
			q := application.ListDeliveries{Caller: caller, FormID: id, Kind: in.Kind, State: in.State, Limit: in.Limit}
			if in.Cursor != "" {
				if q.After, err = decodeCursor(in.Cursor); err != nil {
					return deliveriesOutput{}, err
				}
			}
			page, err := s.app.Queries.ListDeliveries.Handle(ctx, q)
			if err != nil {
				return deliveriesOutput{}, err
			}
			out := deliveriesOutput{Deliveries: make([]deliveryShape, len(page.Deliveries))}
			for i, d := range page.Deliveries {
				out.Deliveries[i] = presentDelivery(d)
			}
			if page.Next != nil {
				out.NextCursor = encodeCursor(*page.Next)
			}
			return out, nil
		})

	addTool(s, srv, &sdk.Tool{Name: "retry_delivery", Title: "Retry a failed delivery", Annotations: sends,
		Description: "Queues a failed delivery again, at once. Only a failed delivery whose submission is still kept can be " +
			"retried; the refusal says why otherwise. Its outcome shows in list_deliveries. Needs forms:write."},
		func(ctx context.Context, caller application.Session, in deliveryIDInput) (deliveryOutput, error) {
			id, err := idOf(in.DeliveryID)
			if err != nil {
				return deliveryOutput{}, err
			}
			d, err := s.app.Commands.RetryDelivery.Handle(ctx, application.RetryDelivery{Caller: caller, RequestID: requestIDOf(ctx), DeliveryID: id})
			if err != nil {
				return deliveryOutput{}, err
			}
			return deliveryOutput{Delivery: presentDelivery(d)}, nil
		})
}

// encodeCursor makes a page's position opaque, in the API's format, so a
// cursor from either works in both.
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
