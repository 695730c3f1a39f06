package application

import (
	"context"

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
	read ReadModel
}

// NewVerificationLinkHandler builds the handler.
func NewVerificationLinkHandler(read ReadModel) *VerificationLinkHandler {
	if read == nil {
		panic("application: nil dependency of VerificationLinkHandler")
	}
	return &VerificationLinkHandler{read: read}
}

// Handle finds the link's verification; an unknown token is domain.ErrNotFound.
func (h *VerificationLinkHandler) Handle(ctx context.Context, q VerificationLinkQuery) (LinkView, error) {
	rec, err := h.read.VerificationByTokenHash(ctx, HashSecret(q.Token))
	if err != nil {
		return LinkView{}, err
	}
	return LinkView{Kind: rec.Kind, Email: rec.Email}, nil
}
