package application

import (
	"context"
	"errors"

	"github.com/formd/formd/domain"
)

// SpamLinkQuery is the opening of the "this was spam" link of a
// notification mail (GET /spam/{token}).
type SpamLinkQuery struct {
	Token string
}

// SpamLinkView is what the page the link opens shows before anything is
// marked.
type SpamLinkView struct {
	FormName string
}

// SpamLinkHandler reads a spam link and changes nothing: mail scanners and
// link previews fetch every link in a mail, so opening one must not mark a
// submission (the page's button does, with a POST: MarkSpamHandler).
type SpamLinkHandler struct {
	read   FormReader
	tokens SpamLinkTokens
	clock  Clock
}

// NewSpamLinkHandler builds the handler; every dependency is required.
func NewSpamLinkHandler(read FormReader, tokens SpamLinkTokens, clock Clock) *SpamLinkHandler {
	if read == nil || tokens == nil || clock == nil {
		panic("application: nil dependency of SpamLinkHandler")
	}
	return &SpamLinkHandler{read: read, tokens: tokens, clock: clock}
}

// Handle checks the link: ErrBadSpamLink when it is not formd's or its
// form is gone, ErrSpamLinkExpired when it is too old.
func (h *SpamLinkHandler) Handle(ctx context.Context, q SpamLinkQuery) (SpamLinkView, error) {
	_, rec, err := openSpamLink(ctx, h.tokens, h.read, h.clock, q.Token)
	if err != nil {
		return SpamLinkView{}, err
	}
	return SpamLinkView{FormName: rec.Settings.Name}, nil
}

// openSpamLink reads and judges a spam link token and finds its form.
func openSpamLink(ctx context.Context, tokens SpamLinkTokens, read FormReader, clock Clock, token string) (SpamLink, FormRecord, error) {
	l, err := tokens.Read(token)
	if err != nil {
		return SpamLink{}, FormRecord{}, err
	}
	if !clock.Now().Before(l.Expires) {
		return SpamLink{}, FormRecord{}, ErrSpamLinkExpired
	}
	rec, err := read.FormByID(ctx, l.FormID)
	if errors.Is(err, domain.ErrNotFound) {
		// A deleted form's links mark nothing any more.
		return SpamLink{}, FormRecord{}, ErrBadSpamLink
	}
	return l, rec, err
}
