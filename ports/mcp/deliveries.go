package mcp

import (
	"context"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/ports/portkit"
)

type listDeliveriesInput struct {
	FormID string `json:"formId" jsonschema:"the form's id"`
	Kind   string `json:"kind,omitempty" jsonschema:"only deliveries of this kind (notification, webhook, recipient_verification…)"`
	State  string `json:"state,omitempty" jsonschema:"only deliveries in this state: queued, retrying, succeeded or failed"`
	Limit  int    `json:"limit,omitempty" jsonschema:"at most this many, 1 to 200 (default 50)"`
	Cursor string `json:"cursor,omitempty" jsonschema:"the nextCursor of the previous page, unchanged"`
}

type deliveriesOutput struct {
	Deliveries []portkit.Delivery `json:"deliveries" jsonschema:"newest first"`
	NextCursor string             `json:"nextCursor,omitempty" jsonschema:"pass it as cursor for the next page; absent on the last page"`
}

type deliveryIDInput struct {
	DeliveryID string `json:"deliveryId" jsonschema:"the delivery's id, as list_deliveries gives it"`
}

type deliveryOutput struct {
	Delivery portkit.Delivery `json:"delivery"`
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
				if q.After, err = portkit.DecodeDeliveryCursor(in.Cursor); err != nil {
					return deliveriesOutput{}, err
				}
			}
			page, err := s.app.Queries.ListDeliveries.Handle(ctx, q)
			if err != nil {
				return deliveriesOutput{}, err
			}
			out := deliveriesOutput{Deliveries: make([]portkit.Delivery, len(page.Deliveries))}
			for i, d := range page.Deliveries {
				out.Deliveries[i] = portkit.PresentDelivery(d)
			}
			if page.Next != nil {
				out.NextCursor = portkit.EncodeDeliveryCursor(*page.Next)
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
			return deliveryOutput{Delivery: portkit.PresentDelivery(d)}, nil
		})
}
