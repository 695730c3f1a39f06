package application

import (
	"context"
	"time"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/submission"
)

// Pages of the Spam folder.
const (
	DefaultHeldPage = 50
	MaxHeldPage     = 100
)

// ListHeld is GET /v1/forms/{formId}/spam: the form's held submissions,
// newest first. Limit 0 means DefaultHeldPage.
type ListHeld struct {
	Caller    Session
	RequestID string
	FormID    string
	After     *ArchiveCursor
	Limit     int
}

// HeldPage is one page of the Spam folder; Next is nil on the last page.
// Total counts every held submission of the form.
type HeldPage struct {
	Submissions []HeldEntry
	Next        *ArchiveCursor
	Total       int
}

// HeldEntry is a held submission, opened: what it was submitted with, and
// the spam verdict that held it.
type HeldEntry struct {
	SubmissionID   string
	RequestID      string
	FormVersion    int
	HeldAt         time.Time
	Until          time.Time
	Fields         []submission.Field
	SubmitterEmail string
	Subject        string
	Score          float64
	Reasons        []string
	// Attachments name the files that came with it; their content is
	// delivered only if it is released.
	Attachments []ArchivedAttachment
}

// ReviewHeld is the owner's judgement of one held submission:
// POST /v1/forms/{formId}/spam/{submissionId}/not-spam or /spam, or
// DELETE /v1/forms/{formId}/spam/{submissionId}.
type ReviewHeld struct {
	Caller       Session
	RequestID    string
	FormID       string
	SubmissionID string
	// Verdict is form.ReviewedNotSpam, form.ReviewedSpam or
	// form.ReviewedDeleted.
	Verdict string
}

// Review is what a review did.
type Review struct {
	SubmissionID string
	Verdict      string
	// Learned says whether the content classifier was taught the verdict.
	Learned bool
	// DeliveryIDs are the deliveries a release queued.
	DeliveryIDs []string
}

// SpamFolderHandler reads and reviews a form's Spam folder. Reading it is
// reading submissions: each read is recorded in the form's access log as
// the archive's are. Each review is a form event in the audit trail.
type SpamFolderHandler struct {
	tx     Transactor
	read   FormReader
	folder SpamFolder
	access SubmissionAccessLog
	sealer Sealer
	spam   *SpamChecks
	clock  Clock
}

// NewSpamFolderHandler builds the handler; every dependency is required
// (spam's classifier may be absent: reviews are then not learned).
func NewSpamFolderHandler(tx Transactor, read FormReader, folder SpamFolder, access SubmissionAccessLog, sealer Sealer, spam *SpamChecks,
	clock Clock) *SpamFolderHandler {
	if tx == nil || read == nil || folder == nil || access == nil || sealer == nil || spam == nil || clock == nil {
		panic("application: nil dependency of SpamFolderHandler")
	}
	return &SpamFolderHandler{tx: tx, read: read, folder: folder, access: access, sealer: sealer, spam: spam, clock: clock}
}

// accessFolder marks the Spam folder's reads in the access log.
var accessFolder = map[string]string{"folder": "spam"}

// List returns one page of the form's Spam folder, opening only the
// submissions on it.
func (h *SpamFolderHandler) List(ctx context.Context, q ListHeld) (HeldPage, error) {
	if err := q.Caller.Require(account.ScopeSubmissionsRead); err != nil {
		return HeldPage{}, err
	}
	if q.Limit < 0 || q.Limit > MaxHeldPage {
		return HeldPage{}, domain.Invalid("limit", "limit must be between 1 and %d", MaxHeldPage)
	}
	rec, err := ownedForm(ctx, h.read, q.Caller, q.FormID)
	if err != nil {
		return HeldPage{}, err
	}
	want := q.Limit
	if want == 0 {
		want = DefaultHeldPage
	}
	found, err := h.folder.HeldPage(ctx, rec.ID, q.After, want+1)
	if err != nil {
		return HeldPage{}, err
	}
	var page HeldPage
	if len(found) > want {
		found = found[:want]
		last := found[want-1]
		page.Next = &ArchiveCursor{At: last.HeldAt, ID: last.SubmissionID}
	}
	if page.Total, err = h.folder.HeldCount(ctx, rec.ID); err != nil {
		return HeldPage{}, err
	}
	n := len(found)
	if err := h.record(ctx, q.Caller, q.RequestID, SubmissionAccess{FormID: rec.ID, Action: AccessList, Filters: accessFolder, Count: &n}); err != nil {
		return HeldPage{}, err
	}
	page.Submissions = make([]HeldEntry, len(found))
	for i, s := range found {
		if page.Submissions[i], err = h.open(s); err != nil {
			return HeldPage{}, err
		}
	}
	return page, nil
}

// Count is how many submissions the form's Spam folder holds, for the
// dashboard's tab; it opens none.
func (h *SpamFolderHandler) Count(ctx context.Context, caller Session, formID string) (int, error) {
	if err := caller.Require(account.ScopeFormsRead); err != nil {
		return 0, err
	}
	rec, err := ownedForm(ctx, h.read, caller, formID)
	if err != nil {
		return 0, err
	}
	return h.folder.HeldCount(ctx, rec.ID)
}

// Get returns one held submission, opened.
func (h *SpamFolderHandler) Get(ctx context.Context, caller Session, requestID, formID, submissionID string) (HeldEntry, error) {
	if err := caller.Require(account.ScopeSubmissionsRead); err != nil {
		return HeldEntry{}, err
	}
	rec, err := ownedForm(ctx, h.read, caller, formID)
	if err != nil {
		return HeldEntry{}, err
	}
	s, err := h.folder.HeldSubmission(ctx, rec.ID, submissionID)
	if err != nil {
		return HeldEntry{}, err
	}
	one := 1
	if err := h.record(ctx, caller, requestID, SubmissionAccess{FormID: rec.ID, Action: AccessRead, SubmissionID: s.SubmissionID,
		Filters: accessFolder, Count: &one}); err != nil {
		return HeldEntry{}, err
	}
	return h.open(s)
}

// Review carries out the owner's judgement of a held submission: not spam
// queues its deliveries now and teaches the classifier ham; spam shreds it
// and teaches spam; delete shreds it and teaches nothing. The classifier is
// taught before the folder changes, while the content is there to learn
// from; a classifier that cannot be taught does not stop the review.
func (h *SpamFolderHandler) Review(ctx context.Context, cmd ReviewHeld) (Review, error) {
	if err := cmd.Caller.Require(account.ScopeSubmissionsDelete); err != nil {
		return Review{}, err
	}
	rec, err := ownedForm(ctx, h.read, cmd.Caller, cmd.FormID)
	if err != nil {
		return Review{}, err
	}
	return h.review(ctx, metadataFor(cmd.Caller, cmd.RequestID), rec, cmd.SubmissionID, cmd.Verdict)
}

// review carries out a judgement for an actor that may review rec.
func (h *SpamFolderHandler) review(ctx context.Context, md Metadata, rec FormRecord, submissionID, verdict string) (Review, error) {
	switch verdict {
	case form.ReviewedNotSpam, form.ReviewedSpam, form.ReviewedDeleted:
	default:
		return Review{}, domain.Invalid("verdict", "a review finds a submission spam or not spam, or deletes it")
	}
	s, err := h.folder.HeldSubmission(ctx, rec.ID, submissionID)
	if err != nil {
		return Review{}, err
	}
	out := Review{SubmissionID: s.SubmissionID, Verdict: verdict}
	if verdict != form.ReviewedDeleted {
		p, err := h.payload(s)
		if err != nil {
			return Review{}, err
		}
		out.Learned = h.spam.learn(ctx, rec.ID, p, verdict == form.ReviewedSpam)
	}
	now := h.clock.Now()
	if verdict == form.ReviewedNotSpam {
		queued, err := h.folder.Release(ctx, rec.ID, s.SubmissionID, rec.Settings.Archive.KeepUntil(s.HeldAt), now)
		if err != nil {
			return Review{}, err
		}
		for _, q := range queued {
			out.DeliveryIDs = append(out.DeliveryIDs, q.DeliveryID)
		}
	} else if err := h.folder.ShredHeld(ctx, rec.ID, s.SubmissionID, now); err != nil {
		return Review{}, err
	}
	// The review is done: a trail that cannot be written is an error the
	// caller sees, though the folder already changed (as an erasure's).
	err = h.tx.InTx(ctx, md, func(tx Tx) error {
		f, err := tx.LoadForm(ctx, rec.ID)
		if err != nil {
			return err
		}
		if err := f.RecordSpamReviewed(s.SubmissionID, verdict, out.Learned, now); err != nil {
			return err
		}
		return tx.SaveForm(ctx, f)
	})
	return out, err
}

// record stores a read of the folder before any submission leaves it.
func (h *SpamFolderHandler) record(ctx context.Context, caller Session, requestID string, a SubmissionAccess) error {
	md := metadataFor(caller, requestID)
	a.Actor, a.RequestID, a.At = md.Actor, md.RequestID, h.clock.Now()
	_, err := h.access.RecordAccess(ctx, a)
	return err
}

func (h *SpamFolderHandler) payload(s HeldSubmission) (Payload, error) {
	plain, err := h.sealer.Open(s.SubmissionID, s.Sealed)
	if err != nil {
		return Payload{}, err
	}
	return decodePayload(plain)
}

// open is a held submission as the owner reviewing it sees it.
func (h *SpamFolderHandler) open(s HeldSubmission) (HeldEntry, error) {
	p, err := h.payload(s)
	if err != nil {
		return HeldEntry{}, err
	}
	e := HeldEntry{SubmissionID: s.SubmissionID, RequestID: s.RequestID, FormVersion: s.FormVersion, HeldAt: s.HeldAt, Until: s.Until,
		Fields: p.Fields, SubmitterEmail: p.SubmitterEmail, Subject: p.Subject}
	if t := p.Held; t != nil {
		e.Score, e.Reasons = t.Score, t.Reasons
	}
	for _, a := range p.Attachments {
		e.Attachments = append(e.Attachments, ArchivedAttachment{Field: a.Field, Name: a.Name, Type: a.Type, Size: a.Size, Uploaded: a.Key != ""})
	}
	return e, nil
}
