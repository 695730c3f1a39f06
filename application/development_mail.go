package application

import (
	"context"
	"time"

	"github.com/formd/formd/domain"
)

// SpooledMessage is a mail formd wrote to its development spool instead of
// sending it.
type SpooledMessage struct {
	// Name is the spool file's name (the delivery id and .eml).
	Name    string
	To      string
	Subject string
	Date    time.Time
	// Text is the plain-text body.
	Text string
}

// SpooledMail reads the development spool, newest first.
type SpooledMail interface {
	Messages(ctx context.Context, limit int) ([]SpooledMessage, error)
}

// ReadDevelopmentMail asks for the latest spooled mails.
type ReadDevelopmentMail struct {
	Limit int
}

// ReadDevelopmentMailHandler lets a newcomer running `make run` read the
// mails formd would have sent (verification links, notifications) in the
// dashboard. It exists only in development mode with no SMTP server: a
// production formd never shows mail to whoever asks.
type ReadDevelopmentMailHandler struct {
	mail SpooledMail
}

// NewReadDevelopmentMailHandler builds the handler; mail nil means there is
// no development spool to read.
func NewReadDevelopmentMailHandler(mail SpooledMail) *ReadDevelopmentMailHandler {
	return &ReadDevelopmentMailHandler{mail: mail}
}

// Available reports whether there is a development spool to read.
func (h *ReadDevelopmentMailHandler) Available() bool { return h != nil && h.mail != nil }

// Handle reads up to q.Limit (1–100, default 50) spooled mails, newest
// first; domain.ErrNotFound when there is no development spool.
func (h *ReadDevelopmentMailHandler) Handle(ctx context.Context, q ReadDevelopmentMail) ([]SpooledMessage, error) {
	if !h.Available() {
		return nil, domain.ErrNotFound
	}
	if q.Limit <= 0 || q.Limit > 100 {
		q.Limit = 50
	}
	return h.mail.Messages(ctx, q.Limit)
}
