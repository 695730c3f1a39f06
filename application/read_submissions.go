package application

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/submission"
)

// Pages of the submissions archive.
const (
	DefaultSubmissionPage = 50
	MaxSubmissionPage     = 100
)

// ListSubmissions is GET /v1/forms/{formId}/submissions: the archived
// submissions of a form, newest first. Every filter is optional; Field and
// Value go together. Limit 0 means DefaultSubmissionPage.
type ListSubmissions struct {
	Caller    Session
	RequestID string
	FormID    string
	From, To  time.Time
	Status    string
	Email     string
	Field     string
	Value     string
	After     *ArchiveCursor
	Limit     int
}

// SubmissionsPage is one page of the archive; Next is nil on the last page.
type SubmissionsPage struct {
	Submissions []ArchivedEntry
	Next        *ArchiveCursor
}

// ArchivedEntry is an archived submission, opened: what it was accepted
// with and what became of it.
type ArchivedEntry struct {
	ArchivedSubmission
	Fields         []submission.Field
	SubmitterEmail string
	Subject        string
	Attachments    []ArchivedAttachment
}

// ArchivedAttachment is a file of an archived submission. A file uploaded
// in advance has a download link while its links are valid (Link empty
// after); a file that came in the post itself is read through the archive
// (ReadSubmissionAttachment) as long as the submission is archived.
type ArchivedAttachment struct {
	Field    string
	Name     string
	Type     string
	Size     int64
	Uploaded bool
	Link     string
	Expires  time.Time
}

// GetSubmission is GET /v1/forms/{formId}/submissions/{submissionId}.
type GetSubmission struct {
	Caller       Session
	RequestID    string
	FormID       string
	SubmissionID string
}

// SubmissionDetails is one archived submission with its deliveries.
type SubmissionDetails struct {
	ArchivedEntry
	Deliveries []DeliveryRecord
}

// ReadSubmissionAttachment is GET
// /v1/forms/{formId}/submissions/{submissionId}/attachments/{index}: a file
// that came in the post, from the sealed payload.
type ReadSubmissionAttachment struct {
	Caller       Session
	RequestID    string
	FormID       string
	SubmissionID string
	// Index counts the submission's attachments from 0, in their order.
	Index int
}

// AttachmentContent is a file to serve as a download.
type AttachmentContent struct {
	Name        string
	Disposition string
	ContentType string
	Content     []byte
}

// ReadSubmissionsHandler reads the submissions archive and records every
// read in the form's access log before anything is returned.
type ReadSubmissionsHandler struct {
	read    FormReader
	archive SubmissionArchive
	log     DeliveryLog
	access  SubmissionAccessLog
	sealer  Sealer
	hasher  EveryKeyHasher
	links   ObjectLinks
	clock   Clock
}

// NewReadSubmissionsHandler builds the handler; every dependency is required.
func NewReadSubmissionsHandler(read FormReader, archive SubmissionArchive, log DeliveryLog, access SubmissionAccessLog, sealer Sealer,
	hasher EveryKeyHasher, links ObjectLinks, clock Clock) *ReadSubmissionsHandler {
	if read == nil || archive == nil || log == nil || access == nil || sealer == nil || hasher == nil || links == nil || clock == nil {
		panic("application: nil dependency of ReadSubmissionsHandler")
	}
	return &ReadSubmissionsHandler{read: read, archive: archive, log: log, access: access, sealer: sealer, hasher: hasher, links: links, clock: clock}
}

// List returns one page of the form's archive, opening only the
// submissions on it.
func (h *ReadSubmissionsHandler) List(ctx context.Context, q ListSubmissions) (SubmissionsPage, error) {
	if err := q.Caller.Require(account.ScopeSubmissionsRead); err != nil {
		return SubmissionsPage{}, err
	}
	if err := checkList(q); err != nil {
		return SubmissionsPage{}, err
	}
	rec, err := ownedForm(ctx, h.read, q.Caller, q.FormID)
	if err != nil {
		return SubmissionsPage{}, err
	}
	f := h.filterOf(rec.ID, q)
	want := f.Limit
	f.Limit++ // one more tells whether another page follows
	found, err := h.archive.ArchivedPage(ctx, rec.ID, f)
	if err != nil {
		return SubmissionsPage{}, err
	}
	var page SubmissionsPage
	if len(found) > want {
		found = found[:want]
		last := found[want-1]
		page.Next = &ArchiveCursor{At: last.AcceptedAt, ID: last.SubmissionID}
	}
	n := len(found)
	access := SubmissionAccess{FormID: rec.ID, Action: AccessList, Filters: h.accessFilters(rec.ID, q), Count: &n}
	if _, err := h.record(ctx, q.Caller, q.RequestID, access); err != nil {
		return SubmissionsPage{}, err
	}
	page.Submissions = make([]ArchivedEntry, len(found))
	for i, s := range found {
		if page.Submissions[i], err = h.open(ctx, s); err != nil {
			return SubmissionsPage{}, err
		}
	}
	return page, nil
}

// Get returns one archived submission, opened, with its deliveries.
func (h *ReadSubmissionsHandler) Get(ctx context.Context, q GetSubmission) (SubmissionDetails, error) {
	if err := q.Caller.Require(account.ScopeSubmissionsRead); err != nil {
		return SubmissionDetails{}, err
	}
	rec, err := ownedForm(ctx, h.read, q.Caller, q.FormID)
	if err != nil {
		return SubmissionDetails{}, err
	}
	s, err := h.archive.ArchivedSubmission(ctx, rec.ID, q.SubmissionID)
	if err != nil {
		return SubmissionDetails{}, err
	}
	deliveries, err := h.log.SubmissionDeliveries(ctx, s.SubmissionID)
	if err != nil {
		return SubmissionDetails{}, err
	}
	one := 1
	if _, err := h.record(ctx, q.Caller, q.RequestID, SubmissionAccess{FormID: rec.ID, Action: AccessRead,
		SubmissionID: s.SubmissionID, Count: &one}); err != nil {
		return SubmissionDetails{}, err
	}
	entry, err := h.open(ctx, s)
	return SubmissionDetails{ArchivedEntry: entry, Deliveries: deliveries}, err
}

// Attachment returns a file that came in the post of an archived
// submission; domain.ErrNotFound for an index it does not have, or for a
// file uploaded in advance (its download link serves it).
func (h *ReadSubmissionsHandler) Attachment(ctx context.Context, q ReadSubmissionAttachment) (AttachmentContent, error) {
	if err := q.Caller.Require(account.ScopeSubmissionsRead); err != nil {
		return AttachmentContent{}, err
	}
	rec, err := ownedForm(ctx, h.read, q.Caller, q.FormID)
	if err != nil {
		return AttachmentContent{}, err
	}
	s, err := h.archive.ArchivedSubmission(ctx, rec.ID, q.SubmissionID)
	if err != nil {
		return AttachmentContent{}, err
	}
	p, err := h.payload(s)
	if err != nil {
		return AttachmentContent{}, err
	}
	if q.Index < 0 || q.Index >= len(p.Attachments) || p.Attachments[q.Index].Key != "" {
		return AttachmentContent{}, domain.ErrNotFound
	}
	one := 1
	if _, err := h.record(ctx, q.Caller, q.RequestID, SubmissionAccess{FormID: rec.ID, Action: AccessRead,
		SubmissionID: s.SubmissionID, Filters: map[string]string{"attachment": strconv.Itoa(q.Index)}, Count: &one}); err != nil {
		return AttachmentContent{}, err
	}
	a := p.Attachments[q.Index]
	name := safeObjectName(a.Name)
	return AttachmentContent{Name: name, Disposition: AttachmentDisposition(name), ContentType: DownloadContentType, Content: a.Content}, nil
}

// Accesses lists the latest reads of the form's archive, newest first, for
// its audit page.
func (h *ReadSubmissionsHandler) Accesses(ctx context.Context, caller Session, formID string, limit int) ([]SubmissionAccess, error) {
	if err := caller.Require(account.ScopeFormsRead); err != nil {
		return nil, err
	}
	rec, err := ownedForm(ctx, h.read, caller, formID)
	if err != nil {
		return nil, err
	}
	return h.access.FormAccesses(ctx, rec.ID, limit)
}

// checkList refuses a list's parameters that make no sense.
func checkList(q ListSubmissions) error {
	if q.Limit < 0 || q.Limit > MaxSubmissionPage {
		return domain.Invalid("limit", "limit must be between 1 and %d", MaxSubmissionPage)
	}
	if !q.From.IsZero() && !q.To.IsZero() && !q.From.Before(q.To) {
		return domain.Invalid("from", "from must be before to")
	}
	if q.Status != "" && !slices.Contains([]string{ArchivedPending, ArchivedDelivered, ArchivedFailed}, q.Status) {
		return domain.Invalid("status", "status must be one of pending, delivered, failed")
	}
	if q.Field == "" && q.Value != "" {
		return domain.Invalid("field", "field names the field whose value is value")
	}
	if q.Field != "" && q.Value == "" {
		return domain.Invalid("value", "value is the value of field to find")
	}
	return nil
}

// filterOf is a checked list's filter for the form: values by their keyed
// hashes.
func (h *ReadSubmissionsHandler) filterOf(formID string, q ListSubmissions) ArchiveFilter {
	f := ArchiveFilter{From: q.From, To: q.To, Status: q.Status, After: q.After, Limit: q.Limit}
	if f.Limit == 0 {
		f.Limit = DefaultSubmissionPage
	}
	if email := strings.TrimSpace(q.Email); email != "" {
		f.Values = append(f.Values, ValueMatch{Field: submission.FieldEmail, Hashes: valueHashesOf(h.hasher, formID, submission.FieldEmail, email)})
	}
	if q.Field != "" {
		f.Values = append(f.Values, ValueMatch{Field: q.Field, Hashes: valueHashesOf(h.hasher, formID, q.Field, q.Value)})
	}
	return f
}

// valueHashesOf are the keyed hashes a field holding value may have, under
// every configured key; an email field's also in lower case, since
// addresses are matched whatever their case. It is the one rule for finding
// a value by its hash: the archive's filters and erasure by email use it.
func valueHashesOf(hasher EveryKeyHasher, formID, field, value string) []string {
	out := hasher.HashValueUnderEveryKey(formID, field, value)
	if field == submission.FieldEmail {
		if lower := strings.ToLower(value); lower != value {
			out = append(out, hasher.HashValueUnderEveryKey(formID, field, lower)...)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// accessFilters are a list's filters as its access record keeps them: a
// value filter by its keyed hash under the current key, never the value.
func (h *ReadSubmissionsHandler) accessFilters(formID string, q ListSubmissions) map[string]string {
	out := map[string]string{}
	if !q.From.IsZero() {
		out["from"] = q.From.UTC().Format(time.RFC3339)
	}
	if !q.To.IsZero() {
		out["to"] = q.To.UTC().Format(time.RFC3339)
	}
	if q.Status != "" {
		out["status"] = q.Status
	}
	if email := strings.TrimSpace(q.Email); email != "" {
		out["email"] = h.hasher.HashValueUnderEveryKey(formID, submission.FieldEmail, strings.ToLower(email))[0]
	}
	if q.Field != "" {
		out["field"] = q.Field
		out["value"] = h.hasher.HashValueUnderEveryKey(formID, q.Field, q.Value)[0]
	}
	if q.After != nil {
		out["cursor"] = "next page"
	}
	return out
}

// record stores the access before any submission leaves: a read that cannot
// be recorded is refused. It returns the record's id.
func (h *ReadSubmissionsHandler) record(ctx context.Context, caller Session, requestID string, a SubmissionAccess) (int64, error) {
	md := metadataFor(caller, requestID)
	a.Actor, a.RequestID, a.At = md.Actor, md.RequestID, h.clock.Now()
	return h.access.RecordAccess(ctx, a)
}

// payload opens an archived submission's sealed payload.
func (h *ReadSubmissionsHandler) payload(s ArchivedSubmission) (Payload, error) {
	plain, err := h.sealer.Open(s.SubmissionID, s.Sealed)
	if err != nil {
		return Payload{}, err
	}
	return decodePayload(plain)
}

// open is an archived submission as a reader sees it.
func (h *ReadSubmissionsHandler) open(ctx context.Context, s ArchivedSubmission) (ArchivedEntry, error) {
	p, err := h.payload(s)
	if err != nil {
		return ArchivedEntry{}, err
	}
	s.Sealed = SealedPayload{}
	entry := ArchivedEntry{ArchivedSubmission: s, Fields: p.Fields, SubmitterEmail: p.SubmitterEmail, Subject: p.Subject}
	now := h.clock.Now()
	for _, a := range p.Attachments {
		out := ArchivedAttachment{Field: a.Field, Name: a.Name, Type: a.Type, Size: a.Size, Uploaded: a.Key != ""}
		if out.Uploaded && now.Before(a.LinksExpire) {
			out.Expires = a.LinksExpire
			if out.Link, err = h.links.DownloadURL(ctx, ObjectDownload{Key: a.Key, Name: safeObjectName(a.Name), Expires: a.LinksExpire}); err != nil {
				return ArchivedEntry{}, err
			}
		}
		entry.Attachments = append(entry.Attachments, out)
	}
	return entry, nil
}
