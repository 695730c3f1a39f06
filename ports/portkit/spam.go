package portkit

import (
	"time"

	"github.com/formd/formd/application"
)

// HeldSubmission is a submission of a form's Spam folder as the API, MCP
// and the dashboard show it. The jsonschema tags describe it to MCP clients.
type HeldSubmission struct {
	ID          string `json:"id"`
	RequestID   string `json:"requestId"`
	FormVersion int    `json:"formVersion,omitempty" jsonschema:"the version of the form whose settings held it"`
	// HeldAt is when it was accepted and held; HeldUntil when it is
	// shredded unless reviewed.
	HeldAt         time.Time         `json:"heldAt"`
	HeldUntil      time.Time         `json:"heldUntil"`
	Score          float64           `json:"score" jsonschema:"the spam score that held it: rule signals plus the classifier's score"`
	Reasons        []string          `json:"reasons" jsonschema:"the rules and classifier symbols that judged it spam"`
	SubmitterEmail string            `json:"submitterEmail,omitempty"`
	Subject        string            `json:"subject,omitempty"`
	Fields         []SubmissionField `json:"fields"`
	// Attachments name the files that came with it, without content: they
	// are delivered if it is released.
	Attachments []SubmissionAttachment `json:"attachments"`
}

// PresentHeld shows a held submission.
func PresentHeld(e application.HeldEntry) HeldSubmission {
	out := HeldSubmission{ID: e.SubmissionID, RequestID: e.RequestID, FormVersion: e.FormVersion, HeldAt: e.HeldAt.UTC(), HeldUntil: e.Until.UTC(), Score: e.Score,
		Reasons: append([]string{}, e.Reasons...), SubmitterEmail: e.SubmitterEmail, Subject: e.Subject,
		Fields: make([]SubmissionField, len(e.Fields)), Attachments: make([]SubmissionAttachment, len(e.Attachments))}
	for i, f := range e.Fields {
		out.Fields[i] = SubmissionField{Name: f.Name, Value: f.Value}
	}
	for i, a := range e.Attachments {
		out.Attachments[i] = SubmissionAttachment{Field: a.Field, Name: a.Name, Type: a.Type, Size: a.Size}
	}
	return out
}

// SpamReview is what a review of a held submission did. The jsonschema
// tags describe it to MCP clients.
type SpamReview struct {
	SubmissionID string   `json:"submissionId"`
	Verdict      string   `json:"verdict" jsonschema:"not_spam (released: its deliveries are queued), spam (shredded) or deleted (shredded, not learned)"`
	Learned      bool     `json:"learned" jsonschema:"whether the content classifier (rspamd) was taught the verdict"`
	DeliveryIDs  []string `json:"deliveryIds,omitempty" jsonschema:"the deliveries a release queued"`
}

// PresentReview shows a review.
func PresentReview(r application.Review) SpamReview {
	return SpamReview{SubmissionID: r.SubmissionID, Verdict: r.Verdict, Learned: r.Learned, DeliveryIDs: r.DeliveryIDs}
}
