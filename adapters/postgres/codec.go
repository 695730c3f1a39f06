package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	wsql "github.com/ThreeDotsLabs/watermill-sql/v4/pkg/sql"

	"github.com/formd/formd/adapters/postgres/eventcodec"
	"github.com/formd/formd/application"
)

// Stream types; each is also the topic its events are published on, and the
// application names the topics.
const (
	StreamForm         = application.TopicForm
	StreamAccount      = application.TopicAccount
	StreamVerification = application.TopicVerification
	StreamSubmission   = application.TopicSubmission
	StreamDelivery     = application.TopicDelivery
)

// Decode turns a stored event into its domain event through its stored shape
// (eventcodec), upcasting an older schema version first.
func Decode(e StoredEvent) (any, error) {
	return eventcodec.Decode(eventcodec.Stored{Type: e.Type, SchemaVersion: e.SchemaVersion, Data: e.Data})
}

// DecodeMessage decodes the event a Watermill message carries, reading its
// data from the event store first when the message only refers to it
// (application.EventMessage.IsReference), in the transaction that
// acknowledges the message (watermill-sql puts it on ctx): the event
// committed with its message, so it is there.
func DecodeMessage(ctx context.Context, e StoredEvent) (any, error) {
	e, err := ResolveMessage(ctx, e)
	if err != nil {
		return nil, err
	}
	return Decode(e)
}

// ResolveMessage fills a referring message's Data and Metadata from the
// stored event (see DecodeMessage); a message that carries them is
// returned as it is.
func ResolveMessage(ctx context.Context, e StoredEvent) (StoredEvent, error) {
	if !e.IsReference() {
		return e, nil
	}
	tx, ok := wsql.TxFromContext(ctx)
	if !ok {
		return e, errors.New("reading a message's event needs the transaction of the message being handled")
	}
	rows, err := tx.QueryContext(ctx, `SELECT data, metadata FROM events WHERE stream_id = $1 AND version = $2`, e.StreamID, e.Version)
	if err != nil {
		return e, err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rowsErr(rows); err != nil {
			return e, err
		}
		return e, fmt.Errorf("%w: the message's event %s version %d is not in the event store", application.ErrPermanent, e.StreamID, e.Version)
	}
	var data, meta []byte
	if err := rows.Scan(&data, &meta); err != nil {
		return e, err
	}
	e.Data = data
	if err := json.Unmarshal(meta, &e.Metadata); err != nil {
		return e, err
	}
	return e, rowsErr(rows)
}

// rowsErr is the error that ended rows, where the driver's rows tell it
// (watermill-sql's Rows interface leaves Err out; its pgx rows have it).
func rowsErr(rows wsql.Rows) error {
	if r, ok := rows.(interface{ Err() error }); ok {
		return r.Err()
	}
	return nil
}

func decodeAll[E any](stored []StoredEvent) ([]E, error) {
	out := make([]E, 0, len(stored))
	for _, s := range stored {
		v, err := Decode(s)
		if err != nil {
			return nil, err
		}
		e, ok := v.(E)
		if !ok {
			return nil, fmt.Errorf("event %s does not belong to this stream", s.Type)
		}
		out = append(out, e)
	}
	return out, nil
}
