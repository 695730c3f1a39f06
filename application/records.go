package application

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/submission"
	"github.com/formd/formd/domain/verification"
)

// Actor is who caused a change: an account acting through a session, a
// workspace token, an agent session, or the system itself.
type Actor struct {
	Type string `json:"type"`
	ID   string `json:"id"`
}

// Actor types recorded in event metadata.
const (
	ActorSession = "session"
	// ActorToken is a workspace API token; its id is the token's id, as
	// GET /v1/workspaces/{id}/tokens lists it, never the token.
	ActorToken  = "token"
	ActorAgent  = "agent"
	ActorLink   = "verification_link"
	ActorSystem = "system"
	// ActorSubmitter is a public submission; its id is a keyed hash of the
	// client IP (submitterID), never the address.
	ActorSubmitter = "submitter"
	// ActorOperator runs formd's command line (`formd plan set`, `formd grant`,
	// `formd revoke`); its id is the OS user who ran it.
	ActorOperator = "operator"
	// ActorAnonymous is a caller without a credential asking for a password
	// reset link; it has no id, the link it asks for goes to the mailbox.
	ActorAnonymous = "anonymous"
	// ActorTelegram is the operator's bot relaying a connect code sent from
	// a chat; its id names the chat.
	ActorTelegram = "telegram"
)

// Metadata travels with every stored event: the actor, the HTTP request that
// caused it and the chain of causes.
type Metadata struct {
	Actor         Actor  `json:"actor"`
	AccountID     string `json:"accountId,omitempty"`
	RequestID     string `json:"requestId,omitempty"`
	CausationID   string `json:"causationId,omitempty"`
	CorrelationID string `json:"correlationId,omitempty"`
}

// Session is an authenticated caller of the control plane: a session from
// POST /agent/auth or a workspace API token.
type Session struct {
	AccountID string
	// CredentialID identifies the credential for the audit trail (a prefix of
	// a session token's hash, a workspace token's id), never the credential.
	CredentialID string
	ActorType    string
	// Access is what the credential may do: everything for a session, one
	// workspace and its scopes for a token. The zero Access may do nothing.
	Access account.Access
}

// Require refuses the caller unless its credential holds scope: every
// control-plane use case names the scope it needs here, first thing.
func (s Session) Require(scope account.Scope) error { return s.Access.Require(scope) }

// ReadsForms reports whether the caller may read forms (forms:read). A
// change made with forms:write alone is answered with an acknowledgement,
// not the record: writing must not be a way to read.
func (s Session) ReadsForms() bool { return s.Require(account.ScopeFormsRead) == nil }

// WorkspaceRecord is one workspace of an account (GET /v1/workspaces).
type WorkspaceRecord struct {
	ID        string
	AccountID string
	Name      string
	CreatedAt time.Time
}

// TokenRecord is a workspace API token as the tokens read model keeps it:
// never the token, whose hash only the store holds.
type TokenRecord struct {
	ID          string
	AccountID   string
	WorkspaceID string
	Name        string
	Prefix      string
	Scopes      []account.Scope
	CreatedAt   time.Time
	// ExpiresAt is nil for a token that never expires; LastUsedAt is nil
	// until the token is first used, and then exact to a minute.
	ExpiresAt  *time.Time
	LastUsedAt *time.Time
}

// AccountRecord is what the read side knows of an account.
type AccountRecord struct {
	ID            string
	Email         string
	EmailVerified bool
}

// FormRecord is the forms read model as /v1 and /submit read it.
type FormRecord struct {
	ID                string
	AccountID         string
	WorkspaceID       string
	AccessKeyPrefix   string
	Settings          form.Settings
	RecipientVerified bool
	Version           int
	CreatedAt         time.Time
	UpdatedAt         time.Time
	// Integrations are the form's configured integrations in display order.
	Integrations []form.Integration
}

// VerificationRecord is the verifications read model.
type VerificationRecord struct {
	ID         string
	Kind       verification.Kind
	SubjectID  string
	Email      string
	DeliveryID string
	Status     verification.Status
	ExpiresAt  time.Time
	// TokenHash is the hash of the link's token (HashSecret), which says
	// which accepted key made the token the request mailed.
	TokenHash []byte
}

// HistoryEntry is one event of a form's audit trail.
type HistoryEntry struct {
	Type       string
	Version    int
	RecordedAt time.Time
	Metadata   Metadata
	// Event is the domain event, decoded from its stored shape by the adapter.
	Event any
}

// SealedPayload is a submission's raw content encrypted under its own data
// key, which is itself wrapped by the server's sealing key.
type SealedPayload struct {
	// KeyID names the server key that wrapped the data key (a fingerprint,
	// never the key); empty for payloads sealed before key ids existed.
	KeyID      string
	WrappedKey []byte
	Ciphertext []byte
}

// StoredResponse is what a retried submission with the same Idempotency-Key
// gets back. It never holds submitted values: the echo is rebuilt from the
// retry itself, which the request hash proves identical.
type StoredResponse struct {
	RequestHash []byte
	Response    SubmissionResponse
	Redirect    string
}

// AcceptedSubmission is everything one accepted submission commits.
type AcceptedSubmission struct {
	FormID         string
	FormVersion    int
	IdempotencyKey string
	Metadata       Metadata
	Accepted       submission.Accepted
	Queued         []delivery.Queued
	// ClaimedUntil, when set, has the commit write the queued deliveries
	// claimed by this process until then, for its delivery workers to take
	// from the DeliveryHandOff rather than claim; the zero time leaves them
	// for any process to claim.
	ClaimedUntil time.Time
	Payload      SealedPayload
	Response     StoredResponse
	// Charge is the quota the submission counts against; an empty
	// AccountID counts it against none.
	Charge QuotaCharge
	// Uploads are the upload keys the submission uses; the commit consumes
	// them all, or refuses the submission with UploadUnavailableError.
	Uploads []ConsumedUpload
	// Autoresponder is the slot the submission's autoresponder takes; zero
	// when the plan sends none.
	Autoresponder AutoresponderSlot
}

// AutoresponderSlot is an address's hourly autoresponder slot on a form.
// The commit takes it with the submission, so a refused submission holds
// none; when another request holds it, the commit leaves the autoresponder
// delivery out and says so (Acceptance.AutoresponderHeld).
type AutoresponderSlot struct {
	// AddressHash is a keyed hash of the submitter's address.
	AddressHash string
	// DeliveryID is the autoresponder delivery the slot lets the commit
	// queue.
	DeliveryID string
}

// Acceptance is what the commit of one submission did.
type Acceptance struct {
	// Prior is the response of an earlier request with the same
	// Idempotency-Key, which committed first; nothing of this one was
	// committed. Nil when this one committed.
	Prior *StoredResponse
	// AutoresponderHeld reports that the commit left the autoresponder
	// delivery out: another request holds the address's slot.
	AutoresponderHeld bool
}

// UploadUnavailableError is the store's refusal of a submission naming an
// upload key that another submission consumed first, or that expired:
// nothing of it was committed.
type UploadUnavailableError struct{ Key string }

func (e *UploadUnavailableError) Error() string {
	return "upload key " + e.Key + " was used or expired"
}

// QuotaCharge is what an accepted submission is counted against: its
// account's monthly quota, for the month it was accepted in, under the
// configured quotas of the plans (the store reads the account's plan in the
// commit, so a plan changed a moment ago applies at once).
type QuotaCharge struct {
	AccountID string
	Month     account.Month
	Quotas    account.Quotas
}

// QuotaExhaustedError is the store's refusal of a submission its account's
// quota has no room for: nothing of it was committed.
type QuotaExhaustedError struct {
	Usage account.Usage
}

func (e *QuotaExhaustedError) Error() string { return e.Usage.ExhaustedMessage() }

// AccountPlanRecord is an account with its plan and manual grants, as the
// read side knows them.
type AccountPlanRecord struct {
	AccountRecord
	Plan account.Plan
	// Grants are the features granted by hand, sorted; they include grants
	// made before grants were events, which only the read model holds.
	Grants []string
}

// Payload is the sealed content of an accepted submission: everything its
// deliveries need, captured when it was accepted.
type Payload struct {
	Fields         []submission.Field `json:"fields"`
	Recipient      string             `json:"recipient"`
	Subject        string             `json:"subject"`
	FromName       string             `json:"fromName"`
	ReplyTo        string             `json:"replyTo,omitempty"`
	CC             []string           `json:"cc,omitempty"`
	SubmitterEmail string             `json:"submitterEmail,omitempty"`
	Webhook        string             `json:"webhook,omitempty"`
	Autoresponder  *AutoresponderMail `json:"autoresponder,omitempty"`
	FormName       string             `json:"formName"`
	// RequestID is the submission's request id, for the webhook body.
	RequestID string `json:"requestId,omitempty"`
	// Integrations maps the id of each delivery to an integration to its
	// type, so a 410 Gone disables the right one.
	Integrations map[string]form.IntegrationType `json:"integrations,omitempty"`
	// WebhookURLs maps each webhook delivery's id to its URL: a submission
	// may have a per-submit webhook and the form's webhook integration.
	// Sealed with the fields because a URL may carry a receiver's token;
	// payloads sealed before it existed use Webhook.
	WebhookURLs map[string]string `json:"webhookUrls,omitempty"`
	// Destinations maps each Telegram and Google Sheets delivery's id to
	// where it goes.
	Destinations map[string]Destination `json:"destinations,omitempty"`
	// Attachments are the accepted files, content included: sealed with the
	// fields under the same data key, so shredding the payload once every
	// delivery is final shreds them too.
	Attachments []Attachment `json:"attachments,omitempty"`
}

// Attachment is an accepted file of a submission: a multipart part with
// its content, or an object uploaded in advance, named by its upload key
// and delivered as a download link that works until LinksExpire.
type Attachment struct {
	Field       string    `json:"field"`
	Name        string    `json:"name"`
	Type        string    `json:"type"`
	Size        int64     `json:"size"`
	Content     []byte    `json:"content,omitempty"`
	Key         string    `json:"key,omitempty"`
	LinksExpire time.Time `json:"linksExpire,omitzero"`
}

// AutoresponderMail is the confirmation mail to the submitter.
type AutoresponderMail struct {
	Subject string `json:"subject"`
	Message string `json:"message"`
	// FromName and ReplyTo are the form's own (payloads sealed before they
	// existed fall back to the default sender name and no Reply-To).
	FromName string `json:"fromName,omitempty"`
	ReplyTo  string `json:"replyTo,omitempty"`
}

// Attempt is the outcome of one attempt at a delivery.
type Attempt struct {
	Queued  delivery.Queued
	Number  int
	Outcome delivery.Event
	// Retries is how many manual retries the delivery's stream holds.
	Retries int
}

// ClaimedDelivery is a delivery leased for an attempt.
type ClaimedDelivery struct {
	delivery.Queued
	// Attempts made so far.
	Attempts int
	// Retries is how many times the delivery was retried by hand.
	Retries int
	// Payload is the submission's sealed payload, read with the claim; nil
	// for a redacted submission and for deliveries that have none
	// (verification mails, integration tests).
	Payload *SealedPayload
}

// ErrPermanent marks failures no retry can fix (the payload is gone, the
// receiver refused the request).
var ErrPermanent = errors.New("permanent failure")

// ErrGone is a webhook receiver answering 410 Gone: a permanent failure
// that also disables the form's webhook integration it was sent for.
var ErrGone = fmt.Errorf("%w: the receiver answered 410 Gone", ErrPermanent)

// ErrUnsealable marks a sealed payload that none of the configured keys
// opens: the key that sealed it is missing or wrong. That is the operator's
// to fix, not the receiver's, so its deliveries wait and the payload is kept
// until formd runs with that key (delivery.Postpone); giving up would redact
// the payload and lose the submission.
var ErrUnsealable = errors.New("sealing key wrong or missing")

// Webhook is one JSON POST.
type Webhook struct {
	ID   string
	URL  string
	Body []byte
	// Timestamp is the send time in unix seconds (webhook-timestamp), the
	// one the signature covers.
	Timestamp int64
	// Signature is the webhook-signature header; blank when the form has
	// no signing secret.
	Signature string
}

// Header is one HTTP request header.
type Header struct {
	Name, Value string
}

// Headers are the request headers a webhook (or chat message) is posted
// with: the Standard Webhooks ones and the content type. The sender sets
// exactly these, and the test inbox shows them.
func (w Webhook) Headers() []Header {
	out := []Header{{"Content-Type", "application/json"}, {"User-Agent", "formd-webhook/1"}, {"webhook-id", w.ID},
		{"webhook-timestamp", strconv.FormatInt(w.Timestamp, 10)}}
	if w.Signature != "" {
		out = append(out, Header{"webhook-signature", w.Signature})
	}
	return out
}

// TelegramMessage is one Bot API sendMessage call.
type TelegramMessage struct {
	// ID is the delivery's id, for the adapter's logs and errors.
	ID string
	// Body is the JSON sendMessage body, chat_id included.
	Body []byte
}

// SheetRow is one row to append to a Google sheet.
type SheetRow struct {
	ID            string
	SpreadsheetID string
	SheetName     string
	Values        []string
}

// Destination is where a Telegram or Google Sheets delivery goes, sealed
// with the payload like a webhook's URL.
type Destination struct {
	ChatID        string `json:"chatId,omitempty"`
	SpreadsheetID string `json:"spreadsheetId,omitempty"`
	SheetName     string `json:"sheetName,omitempty"`
}

// Mail is one outgoing email.
type Mail struct {
	DeliveryID string
	MessageID  string
	From       string
	FromName   string
	To         string
	Cc         []string
	ReplyTo    string
	Subject    string
	Text       string
	// Attachments are files attached to the mail (a submission's uploads).
	Attachments []MailAttachment
}

// MailAttachment is one file attached to a mail.
type MailAttachment struct {
	Name    string
	Type    string
	Content []byte
}

// PoisonedMessage is an event message a consumer group failed on for good.
type PoisonedMessage struct {
	// Group is the consumer group (the handler's name), Topic its topic.
	Group, Topic string
	// MessageID is Watermill's message uuid.
	MessageID string
	Payload   []byte
	// Reason is the handler's error.
	Reason string
}

// MailSettings are the sender and public address used in outgoing mail.
type MailSettings struct {
	BaseURL string
	From    string
}

// DeliveryRecord is what the delivery log knows of one delivery. Target is
// the safe form of where it goes (a domain or a host), never an address.
type DeliveryRecord struct {
	ID             string
	AccountID      string
	WorkspaceID    string
	FormID         string
	SubmissionID   string
	VerificationID string
	// Kind is the stored kind (delivery.PublicKind names it for callers).
	Kind          string
	Target        string
	State         string
	Attempts      int
	Retries       int
	LastError     string
	NextAttemptAt *time.Time
	CreatedAt     time.Time
	FinishedAt    *time.Time
	// PayloadKept says whether the submission's sealed payload still exists.
	PayloadKept bool
}

// DeliveryCursor is the position after which a page of the log starts: the
// last delivery of the page before.
type DeliveryCursor struct {
	CreatedAt time.Time
	ID        string
}

// DeliveryFilter narrows a page of the delivery log.
type DeliveryFilter struct {
	// Kinds are stored kinds; empty means every listed kind.
	Kinds []string
	State string
	After *DeliveryCursor
	Limit int
}

// FailedPayloadRetention is how long a submission with a failed delivery
// keeps its sealed payload so the delivery can be retried.
type FailedPayloadRetention time.Duration

// ErrPayloadDeleted means a retry came after the submission's sealed payload
// was shredded; the retry use case turns it into a message with the retention.
var ErrPayloadDeleted = errors.New("the submission's payload was deleted")

// IntegrationRecord is one integration of a form, as PATCH and GET show it.
type IntegrationRecord struct {
	form.Integration
	// Secret is a webhook's new signing secret, only in the answer of the
	// call that made it; afterwards only Integration.SecretPrefix shows.
	Secret string
	// Connect is the one-time code that connects a Telegram chat, only in
	// the answer of the call that issued it (it is stored hashed).
	Connect *ConnectCode
	// Proof is what a Google Sheets integration's owner writes in the
	// spreadsheet to prove they may write to it, while it is not proven.
	Proof *SheetProof
}

// SheetProof is a form's proof code for a spreadsheet and the cell it goes
// in.
type SheetProof struct {
	Code, Range string
}

// ConnectCode is a one-time code that binds a chat to a form's Telegram
// integration when someone sends it to the operator's bot from that chat.
type ConnectCode struct {
	Code      string
	ExpiresAt time.Time
	// URL is the bot's deep link carrying the code (for a private chat), and
	// GroupURL the one that adds the bot to a group with it; both are empty
	// when the bot's username is not known.
	URL, GroupURL string
	// Command is what to send in the chat: "/start <code>".
	Command string
}

// TelegramUpdate is one update of the operator's bot that may carry a
// connect code: a message or channel post with its chat and text.
type TelegramUpdate struct {
	ID     int64
	ChatID string
	Text   string
}

// StoredWebhookSecret is a form webhook's signing secret as stored: sealed.
type StoredWebhookSecret struct {
	ID        string
	FormID    string
	Prefix    string
	Sealed    SealedPayload
	CreatedAt time.Time
	// ExpiresAt is when a rotated-out secret stops signing; zero for the
	// current one.
	ExpiresAt time.Time
}

// StoredCaptchaSecret is a form captcha's provider secret as stored: sealed,
// under the id the form's settings name it by.
type StoredCaptchaSecret struct {
	ID        string
	FormID    string
	Sealed    SealedPayload
	CreatedAt time.Time
}

// CaptchaToken is one token to verify with a captcha provider. Secret and
// Token are credentials: never logged.
type CaptchaToken struct {
	Provider form.CaptchaProvider
	Secret   string
	SiteKey  string
	Token    string
	// RemoteIP is the submitter's address, which providers take as a hint.
	RemoteIP string
}

// ScanVerdict is a malware scanner's verdict on one object: clean, or
// infected with the named signature. Only a completed scan has a verdict.
type ScanVerdict struct {
	Infected bool
	// Signature names what was found (such as Eicar-Test-Signature); empty
	// when the object is clean.
	Signature string
}

// ScanClean is the verdict on an object in which nothing was found.
var ScanClean = ScanVerdict{}

// ScanInfected is the verdict on an object that matched the signature.
func ScanInfected(signature string) ScanVerdict {
	return ScanVerdict{Infected: true, Signature: signature}
}

// SniffBytes is how much of a file's beginning a ContentSniffer reads.
const SniffBytes = 3072

// ObjectOp is what a signed object URL allows.
type ObjectOp string

// The operations of formd's own object routes.
const (
	ObjectPut ObjectOp = "put"
	ObjectGet ObjectOp = "get"
)

// ObjectUpload is what an upload URL is signed for.
type ObjectUpload struct {
	Key         string
	ContentType string
	Size        int64
	Expires     time.Time
}

// UploadTarget is how a client uploads an object: the method, URL and
// headers of one request.
type UploadTarget struct {
	Method  string
	URL     string
	Headers map[string]string
}

// ObjectDownload is what a download link is signed for. Every link serves
// its object as DownloadContentType, named Name (AttachmentDisposition).
type ObjectDownload struct {
	Key     string
	Name    string
	Expires time.Time
}

// Scan states of an upload reservation.
const (
	ScanPending       = ""
	ScanStateClean    = "clean"
	ScanStateInfected = "infected"
)

// UploadReservation is a single-use upload key reserved for one file of
// one form (GET /upload), and what became of it.
type UploadReservation struct {
	Key    string
	FormID string
	// Name, DeclaredType and Size are what the client said when reserving.
	Name         string
	DeclaredType string
	Size         int64
	ReservedAt   time.Time
	// ExpiresAt ends the upload and its use by a submission.
	ExpiresAt time.Time
	// UploadedAt is when the object arrived through formd; zero for a
	// bucket's upload, which formd does not see.
	UploadedAt time.Time
	// Scan is ScanPending, ScanStateClean or ScanStateInfected; Signature names
	// what an infected object matched.
	Scan      string
	Signature string
	// Detected is what the content was sniffed as when it was scanned, and
	// StoredSize how large the stored object was.
	Detected   []string
	StoredSize int64
	// ConsumedBy is the submission that used the key; empty while unused.
	ConsumedBy string
	// LinksExpire is when the download links of a consumed object expire.
	LinksExpire time.Time
}

// ObjectScan is the outcome of scanning a stored object.
type ObjectScan struct {
	Verdict  ScanVerdict
	Detected []string
	Size     int64
	At       time.Time
}

// ConsumedUpload is an upload key a submission uses: its commit marks the
// reservation consumed, or the submission is refused (UploadUnavailableError).
type ConsumedUpload struct {
	Key    string
	FormID string
	// LinksExpire is when the object's download links expire.
	LinksExpire time.Time
}

// StoredTestSubmission is a test submission as stored: sealed, with what
// the inbox is filtered by in the clear.
type StoredTestSubmission struct {
	ID, FormID, RequestID, IdempotencyKey string
	ReceivedAt, ExpiresAt                 time.Time
	Sealed                                SealedPayload
}

// TestInboxFilter narrows a test inbox read; empty fields match anything.
type TestInboxFilter struct {
	RequestID      string
	IdempotencyKey string
	Limit          int
}
