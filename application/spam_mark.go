package application

import (
	"context"
	"errors"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/form"
)

// MarkSpam is the button of the page a notification mail's "this was spam"
// link opens (POST /spam/{token}).
type MarkSpam struct {
	Token     string
	RequestID string
}

// SpamMarked is what a mark did, for the page that answers it.
type SpamMarked struct {
	FormName string
	// Learned says whether the content classifier was taught spam.
	Learned bool
	// Kept says formd still had the submission's content when it was
	// marked; without it the judgement is recorded but nothing is learned.
	Kept bool
	// AlreadyMarked says the submission was marked as spam before: nothing
	// new was done or recorded.
	AlreadyMarked bool
}

// MarkSpamHandler marks the submission a spam link names as spam, as far
// as formd still can: a held one is reviewed as the Spam folder's "spam"
// (learned and shredded); one whose sealed payload is still kept (archived,
// or with deliveries not yet final) teaches the classifier and stays; one
// already shredded is only recorded. Each mark is a form.spam_reviewed
// event in the form's audit trail.
type MarkSpamHandler struct {
	tx     Transactor
	read   FormReader
	folder *SpamFolderHandler
	marks  SpamMarks
	sealer Sealer
	spam   *SpamChecks
	tokens SpamLinkTokens
	clock  Clock
}

// NewMarkSpamHandler builds the handler; every dependency is required
// (spam's classifier may be absent: marks are then not learned).
func NewMarkSpamHandler(tx Transactor, read FormReader, folder *SpamFolderHandler, marks SpamMarks, sealer Sealer, spam *SpamChecks,
	tokens SpamLinkTokens, clock Clock) *MarkSpamHandler {
	if tx == nil || read == nil || folder == nil || marks == nil || sealer == nil || spam == nil || tokens == nil || clock == nil {
		panic("application: nil dependency of MarkSpamHandler")
	}
	return &MarkSpamHandler{tx: tx, read: read, folder: folder, marks: marks, sealer: sealer, spam: spam, tokens: tokens, clock: clock}
}

// Handle marks the link's submission as spam. Marking twice is harmless:
// the second mark finds the first in the trail and does nothing.
func (h *MarkSpamHandler) Handle(ctx context.Context, cmd MarkSpam) (SpamMarked, error) {
	l, rec, err := openSpamLink(ctx, h.tokens, h.read, h.clock, cmd.Token)
	if err != nil {
		return SpamMarked{}, err
	}
	out := SpamMarked{FormName: rec.Settings.Name}
	md := Metadata{Actor: Actor{Type: ActorMailLink, ID: l.SubmissionID}, RequestID: cmd.RequestID}
	review, err := h.folder.review(ctx, md, rec, l.SubmissionID, form.ReviewedSpam)
	if err == nil {
		out.Learned, out.Kept = review.Learned, true
		return out, nil
	}
	if !errors.Is(err, domain.ErrNotFound) {
		return SpamMarked{}, err
	}
	if out.AlreadyMarked, err = h.marks.ReviewedAsSpam(ctx, rec.ID, l.SubmissionID); err != nil || out.AlreadyMarked {
		return out, err
	}
	sealed, err := h.marks.KeptPayload(ctx, rec.ID, l.SubmissionID)
	switch {
	case err == nil:
		out.Kept = true
		// Only taught: an archived submission stays the owner's to read
		// or erase, and pending deliveries still go out.
		if out.Learned, err = h.learn(ctx, rec.ID, l.SubmissionID, sealed); err != nil {
			return SpamMarked{}, err
		}
	case !errors.Is(err, domain.ErrNotFound):
		return SpamMarked{}, err
	}
	now := h.clock.Now()
	err = h.tx.InTx(ctx, md, func(tx Tx) error {
		f, err := tx.LoadForm(ctx, rec.ID)
		if err != nil {
			return err
		}
		if err := f.RecordSpamReviewed(l.SubmissionID, form.ReviewedSpam, out.Learned, now); err != nil {
			return err
		}
		return tx.SaveForm(ctx, f)
	})
	return out, err
}

// learn teaches the classifier spam from a kept payload.
func (h *MarkSpamHandler) learn(ctx context.Context, formID, submissionID string, sealed SealedPayload) (bool, error) {
	plain, err := h.sealer.Open(submissionID, sealed)
	if err != nil {
		return false, err
	}
	p, err := decodePayload(plain)
	if err != nil {
		return false, err
	}
	return h.spam.learn(ctx, formID, p, true), nil
}
