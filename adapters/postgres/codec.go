package postgres

import (
	"fmt"

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
