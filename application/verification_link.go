package application

import (
	"context"

	"github.com/formd/formd/domain"

	"github.com/formd/formd/domain/verification"
)

// VerificationLinkQuery is the opening of a link from a verification or
// password reset mail (GET /verify/{token}).
type VerificationLinkQuery struct {
	Token string
}

// LinkView is what the page a link opens shows: what confirming it does.
type LinkView struct {
	Kind  verification.Kind
	Email string
}

// VerificationLinkHandler finds the verification a link names and changes
// nothing: mail scanners and link previews fetch every link in a mail, so
// opening one must not verify anyone's address (the page's button does, with
// a POST).
type VerificationLinkHandler struct {
	read   VerificationReader
	clock  Clock
	tokens LinkTokens
}

// NewVerificationLinkHandler builds the handler.
func NewVerificationLinkHandler(read VerificationReader, clock Clock, tokens LinkTokens) *VerificationLinkHandler {
	if read == nil || clock == nil || tokens == nil {
		panic("application: nil dependency of VerificationLinkHandler")
	}
	return &VerificationLinkHandler{read: read, clock: clock, tokens: tokens}
}

// Handle finds the link's verification; an unknown token is
// domain.ErrNotFound. A password reset link that is used or expired is
// refused at once, so nobody types a new password into a page that cannot
// take it; the other links are judged when confirmed, where a used link may
// still answer as the first time.
func (h *VerificationLinkHandler) Handle(ctx context.Context, q VerificationLinkQuery) (LinkView, error) {
	rec, err := h.read.VerificationByTokenHash(ctx, HashSecret(q.Token))
	if err != nil {
		return LinkView{}, err
	}
	// A link whose key was retired is not a link any more: its page would
	// offer a button that cannot work.
	if !h.tokens.Verify(rec.ID, q.Token) {
		return LinkView{}, domain.ErrNotFound
	}
	if rec.Kind == verification.KindPasswordReset {
		if rec.Status == verification.StatusVerified {
			return LinkView{}, verification.ErrAlreadyUsed
		}
		if !h.clock.Now().Before(rec.ExpiresAt) {
			return LinkView{}, verification.ErrExpired
		}
	}
	return LinkView{Kind: rec.Kind, Email: rec.Email}, nil
}
