package postgres

import (
	"encoding/json"
	"fmt"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/verification"
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

// decoders map a stored event type to its domain event. An event whose shape
// changes gets a new versioned type and an upcaster here.
var decoders = map[string]func([]byte) (any, error){
	form.CreatedType:             decodeAs[form.Created],
	form.SettingsChangedType:     decodeAs[form.SettingsChanged],
	form.RecipientVerifiedType:   decodeAs[form.RecipientVerified],
	account.RegisteredType:       decodeAs[account.Registered],
	account.EmailVerifiedType:    decodeAs[account.EmailVerified],
	account.WorkspaceCreatedType: decodeAs[account.WorkspaceCreated],
	account.FeatureGrantedType:   decodeAs[account.FeatureGranted],
	verification.RequestedType:   decodeAs[verification.Requested],
	verification.CompletedType:   decodeAs[verification.Completed],
}

func decodeAs[T any](data []byte) (any, error) {
	var v T
	err := json.Unmarshal(data, &v)
	return v, err
}

// Decode turns a stored event into its domain event.
func Decode(e StoredEvent) (any, error) {
	d, ok := decoders[e.Type]
	if !ok {
		return nil, fmt.Errorf("unknown event type %q", e.Type)
	}
	return d(e.Data)
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
