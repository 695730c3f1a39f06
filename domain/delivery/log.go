package delivery

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/formd/formd/domain"
)

// States a delivery is in, as the delivery log shows them.
const (
	StateQueued    = "queued"
	StateRetrying  = "retrying"
	StateSucceeded = "succeeded"
	StateFailed    = "failed"
)

// IsState reports whether s names a delivery state.
func IsState(s string) bool {
	return s == StateQueued || s == StateRetrying || s == StateSucceeded || s == StateFailed
}

// KindNotification is how the delivery log names KindEmail: the
// notification to the form's recipient.
const KindNotification = "notification"

// PublicKind is the kind the delivery log shows for a stored kind.
func PublicKind(kind string) string {
	if kind == KindEmail {
		return KindNotification
	}
	return kind
}

// StoredKind is the stored kind a public kind names; false for a kind the
// log never shows.
func StoredKind(public string) (string, bool) {
	switch public {
	case KindNotification:
		return KindEmail, true
	case KindAutoresponder, KindWebhook, KindSlack, KindDiscord, KindTelegram, KindGoogleSheets, KindRecipientVerification:
		return public, true
	}
	return "", false
}

// Listed reports whether a form's delivery log shows deliveries of kind.
// Account verification and password reset mails belong to an account, not
// to a form, and carry a sign-in link: they are never listed.
func Listed(kind string) bool {
	return kind != KindAccountVerification && kind != KindPasswordReset
}

// EmailTarget is how the log shows a mail's recipient: its domain only, so
// the log never lists who wrote to a form or where its mail goes.
func EmailTarget(address string) string {
	at := strings.LastIndexByte(address, '@')
	if at < 0 {
		return ""
	}
	return strings.ToLower(strings.TrimRight(strings.TrimSpace(address[at+1:]), ">"))
}

// WebhookTarget is how the log shows a webhook: its host only, because a
// webhook's path and query often hold a secret token.
func WebhookTarget(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Hostname())
}

// TelegramTarget is how the log shows a Telegram message: the chat it goes
// to (a chat id is no credential; the bot token is the operator's).
func TelegramTarget(chatID string) string { return "telegram:" + chatID }

// SheetTarget is how the log shows a Sheets row: the spreadsheet it goes to
// (it admits only the service account it is shared with).
func SheetTarget(spreadsheetID string) string { return "sheets:" + spreadsheetID }

// RetryRequestedType is the stored name of RetryRequested.
const RetryRequestedType = "delivery.retry_requested.v1"

// RetryRequested records that someone asked for a failed delivery to be
// attempted again; the metadata of its event names who.
type RetryRequested struct {
	At time.Time
}

// EventType implements the event interface.
func (RetryRequested) EventType() string { return RetryRequestedType }

// DefaultFailedPayloadRetention is how long a submission with a failed
// delivery keeps its sealed payload, so the delivery can be retried.
const DefaultFailedPayloadRetention = 7 * 24 * time.Hour

// PayloadKeptUntil says what happens to a submission's sealed payload once
// none of its deliveries is pending: with none failed it is shredded at once
// (keep is false); with one failed it is kept until finishedAt + retention,
// so the failed delivery can be retried, and shredded after that.
func PayloadKeptUntil(anyFailed bool, finishedAt time.Time, retention time.Duration) (until time.Time, keep bool) {
	if !anyFailed || retention <= 0 {
		return time.Time{}, false
	}
	return finishedAt.Add(retention), true
}

// RequestRetry decides whether a delivery in state may be attempted again:
// only a failed one may, and a submission's delivery only while its payload
// is kept (payloadKept; a verification mail needs none).
func RequestRetry(state string, needsPayload, payloadKept bool, retention time.Duration, now time.Time) (RetryRequested, error) {
	if state != StateFailed {
		return RetryRequested{}, &domain.ForbiddenError{Message: fmt.Sprintf(
			"Only a failed delivery can be retried; this one is %s.", state)}
	}
	if needsPayload && !payloadKept {
		return RetryRequested{}, PayloadDeletedError(retention)
	}
	return RetryRequested{At: now}, nil
}

// PayloadDeletedError refuses a retry whose submission's data is gone.
func PayloadDeletedError(retention time.Duration) error {
	return &domain.ForbiddenError{Message: fmt.Sprintf(
		"This delivery cannot be retried: the submission's data was deleted after %s, as it is for every submission with a failed delivery.",
		retentionText(retention))}
}

// retentionText says a retention in days when it is whole days.
func retentionText(d time.Duration) string {
	const day = 24 * time.Hour
	switch {
	case d == day:
		return "1 day"
	case d > 0 && d%day == 0:
		return fmt.Sprintf("%d days", d/day)
	}
	return d.String()
}
