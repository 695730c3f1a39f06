package portkit

import (
	"encoding/base64"
	"strings"
	"time"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/delivery"
)

// Delivery is one delivery of the log (the spec's Delivery schema). Target
// is the recipient's domain or the receiver's host, never an address or URL.
// The jsonschema tags describe it to MCP clients.
type Delivery struct {
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
	// SpamCheck is what the content classifier made of the delivery's
	// submission: checked or unavailable; absent when none was asked.
	SpamCheck string `json:"spamCheck,omitempty" jsonschema:"checked or unavailable: what the spam classifier made of the submission; absent when none was asked"`
	// Note says why a routed submission's notification went to the
	// primary recipient; absent for every other delivery.
	Note string `json:"note,omitempty" jsonschema:"why a routed submission's notification went to the primary recipient (a matched routing rule's recipient is not verified); absent otherwise"`
}

// PresentDelivery shows a delivery record, its times in UTC and its kind by
// its public name.
func PresentDelivery(r application.DeliveryRecord) Delivery {
	return Delivery{ID: r.ID, FormID: r.FormID, Kind: delivery.PublicKind(r.Kind), Target: r.Target, State: r.State,
		Attempts: r.Attempts, LastError: r.LastError, NextAttemptAt: UTC(r.NextAttemptAt), CreatedAt: r.CreatedAt.UTC(),
		FinishedAt: UTC(r.FinishedAt), SpamCheck: r.SpamCheck, Note: r.Note}
}

// UTC is an optional time in UTC (nil stays nil), as every answer shows times.
func UTC(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// EncodeDeliveryCursor makes a page's position of the delivery log opaque:
// callers pass it back as it is, to the API or to MCP alike.
func EncodeDeliveryCursor(c application.DeliveryCursor) string {
	return encodeCursor(c.CreatedAt, c.ID)
}

// DecodeDeliveryCursor reads a cursor EncodeDeliveryCursor gave out; any
// other is an invalid "cursor" argument.
func DecodeDeliveryCursor(s string) (*application.DeliveryCursor, error) {
	at, id, err := decodeCursor(s)
	if err != nil {
		return nil, err
	}
	return &application.DeliveryCursor{CreatedAt: at, ID: id}, nil
}

// encodeCursor is every keyset page's position: a time and an id, opaque.
func encodeCursor(at time.Time, id string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(at.UTC().Format(time.RFC3339Nano) + "|" + id))
}

// decodeCursor reads what encodeCursor made; any other is an invalid
// "cursor" argument.
func decodeCursor(s string) (time.Time, string, error) {
	bad := domain.Invalid("cursor", "cursor is not one this API gave out; pass nextCursor unchanged")
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return time.Time{}, "", bad
	}
	at, rawID, ok := strings.Cut(string(raw), "|")
	t, err := time.Parse(time.RFC3339Nano, at)
	id, isID := ID(rawID)
	if !ok || err != nil || !isID {
		return time.Time{}, "", bad
	}
	return t, id, nil
}
