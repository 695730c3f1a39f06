package portkit

import (
	"fmt"
	"time"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
)

// Submission is an archived submission as the API, MCP and the dashboard
// show it. Fields keep the order and repeats they were submitted with.
// The jsonschema tags describe it to MCP clients.
type Submission struct {
	ID          string `json:"id"`
	RequestID   string `json:"requestId"`
	FormVersion int    `json:"formVersion,omitempty" jsonschema:"the version of the form whose settings judged it; absent when not recorded"`
	// SubmittedAt is when it was accepted; ArchivedUntil when its retention
	// ends and it is shredded.
	SubmittedAt    time.Time              `json:"submittedAt"`
	ArchivedUntil  time.Time              `json:"archivedUntil"`
	Status         string                 `json:"status" jsonschema:"pending, delivered or failed: its deliveries as a whole"`
	SubmitterEmail string                 `json:"submitterEmail,omitempty"`
	Subject        string                 `json:"subject,omitempty"`
	Fields         []SubmissionField      `json:"fields"`
	Attachments    []SubmissionAttachment `json:"attachments"`
}

// SubmissionField is one submitted field.
type SubmissionField struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// SubmissionAttachment is a file of an archived submission. URL downloads
// it: a signed link until ExpiresAt for a file uploaded in advance (absent
// once expired), else the API's attachment route (with the caller's
// credential) while the submission is archived.
type SubmissionAttachment struct {
	Field     string     `json:"field"`
	Name      string     `json:"name"`
	Type      string     `json:"type"`
	Size      int64      `json:"size"`
	URL       string     `json:"url,omitempty"`
	ExpiresAt *time.Time `json:"expiresAt,omitempty"`
}

// PresentSubmission shows an archived submission of form formID; its
// attachments that came in the post link to AttachmentPath.
func PresentSubmission(formID string, e application.ArchivedEntry) Submission {
	out := Submission{ID: e.SubmissionID, RequestID: e.RequestID, FormVersion: e.FormVersion, SubmittedAt: e.AcceptedAt.UTC(),
		ArchivedUntil: e.Until.UTC(), Status: e.Status, SubmitterEmail: e.SubmitterEmail, Subject: e.Subject,
		Fields: make([]SubmissionField, len(e.Fields)), Attachments: make([]SubmissionAttachment, len(e.Attachments))}
	for i, f := range e.Fields {
		out.Fields[i] = SubmissionField{Name: f.Name, Value: f.Value}
	}
	for i, a := range e.Attachments {
		att := SubmissionAttachment{Field: a.Field, Name: a.Name, Type: a.Type, Size: a.Size}
		switch {
		case !a.Uploaded:
			att.URL = AttachmentPath(formID, e.SubmissionID, i)
		case a.Link != "":
			att.URL, att.ExpiresAt = a.Link, UTC(&a.Expires)
		}
		out.Attachments[i] = att
	}
	return out
}

// AttachmentPath is the API route that serves an archived submission's
// attachment that came in the post.
func AttachmentPath(formID, submissionID string, index int) string {
	return fmt.Sprintf("/v1/forms/%s/submissions/%s/attachments/%d", formID, submissionID, index)
}

// EncodeArchiveCursor makes a page's position of the archive opaque.
func EncodeArchiveCursor(c application.ArchiveCursor) string { return encodeCursor(c.At, c.ID) }

// DecodeArchiveCursor reads a cursor EncodeArchiveCursor gave out; any
// other is an invalid "cursor" argument.
func DecodeArchiveCursor(s string) (*application.ArchiveCursor, error) {
	at, id, err := decodeCursor(s)
	if err != nil {
		return nil, err
	}
	return &application.ArchiveCursor{At: at, ID: id}, nil
}

// ArchiveTime reads a from or to filter of the archive: an RFC 3339 date
// and time, or a date (midnight UTC); empty is no bound.
func ArchiveTime(param, raw string) (time.Time, error) {
	if raw == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, raw); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.DateOnly, raw); err == nil {
		return t, nil
	}
	return time.Time{}, domain.Invalid(param, "%s must be a date (2026-11-27) or a date and time (2026-11-27T09:30:00Z)", param)
}
