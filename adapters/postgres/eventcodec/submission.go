package eventcodec

import (
	"time"

	"github.com/formd/formd/domain/submission"
)

func init() {
	Register(func(e submission.Accepted) submissionAcceptedV1 {
		out := submissionAcceptedV1{SubmissionID: e.SubmissionID, FormID: e.FormID, FormVersion: e.FormVersion, RequestID: e.RequestID,
			FieldNames: e.FieldNames, ValueHashes: e.ValueHashes, SpamCheck: e.SpamCheck, Held: e.Held, At: e.At}
		if e.Deliveries != nil {
			out.Deliveries = make([]deliveryRefV1, len(e.Deliveries))
		}
		for i, d := range e.Deliveries {
			out.Deliveries[i] = deliveryRefV1{ID: d.ID, Kind: d.Kind, Target: d.Target, Note: d.Note}
		}
		return out
	}, func(s submissionAcceptedV1) submission.Accepted {
		out := submission.Accepted{SubmissionID: s.SubmissionID, FormID: s.FormID, FormVersion: s.FormVersion, RequestID: s.RequestID,
			FieldNames: s.FieldNames, ValueHashes: s.ValueHashes, SpamCheck: s.SpamCheck, Held: s.Held, At: s.At}
		if s.Deliveries != nil {
			out.Deliveries = make([]submission.DeliveryRef, len(s.Deliveries))
		}
		for i, d := range s.Deliveries {
			out.Deliveries[i] = submission.DeliveryRef{ID: d.ID, Kind: d.Kind, Target: d.Target, Note: d.Note}
		}
		return out
	})
	Register(func(e submission.Redacted) atV1 { return atV1{At: e.At} },
		func(s atV1) submission.Redacted { return submission.Redacted{At: s.At} })
}

// submissionAcceptedV1 is submission.accepted.v1 as stored: field names and
// keyed hashes of the values, never the values. FormVersion and SpamCheck
// were added without a new schema version: events without them read as 0
// (unknown) and blank (no classifier asked); so was Held (false: the
// deliveries were queued at once).
type submissionAcceptedV1 struct {
	SubmissionID string            `json:"submissionId"`
	FormID       string            `json:"formId"`
	FormVersion  int               `json:"formVersion,omitempty"`
	RequestID    string            `json:"requestId"`
	FieldNames   []string          `json:"fieldNames"`
	ValueHashes  map[string]string `json:"valueHashes"`
	Deliveries   []deliveryRefV1   `json:"deliveries"`
	SpamCheck    string            `json:"spamCheck,omitempty"`
	Held         bool              `json:"held,omitempty"`
	At           time.Time         `json:"at"`
}

// deliveryRefV1 is one delivery a submission queues. Target was added
// without a new schema version: events without it read as an empty one.
type deliveryRefV1 struct {
	ID     string `json:"id"`
	Kind   string `json:"kind"`
	Target string `json:"target,omitempty"`
	// Note came later the same way, and is absent but on a routed
	// submission's notification that a skipped rule sent to the primary.
	Note string `json:"note,omitempty"`
}
