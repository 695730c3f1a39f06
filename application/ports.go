// Package application holds formd's use cases: one command or query per
// file, each a handler with one Handle(ctx, cmd) method, gathered in app.go.
// This file declares every interface (port) the use cases need; adapters
// implement them and cmd/formd binds them with wire. The values that cross
// these ports are in records.go.
package application

import (
	"context"
	"io"
	"time"

	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/submission"
	"github.com/formd/formd/domain/verification"
)

// Transactor runs fn in one database transaction: every aggregate saved in it
// is appended, projected and published together or not at all. When a stream
// changed concurrently, fn is run again on fresh state.
type Transactor interface {
	InTx(ctx context.Context, md Metadata, fn func(tx Tx) error) error
}

// Tx is the unit of work of one transaction.
type Tx interface {
	LoadForm(ctx context.Context, id string) (*form.Form, error)
	SaveForm(ctx context.Context, f *form.Form) error
	LoadAccount(ctx context.Context, id string) (*account.Account, error)
	SaveAccount(ctx context.Context, a *account.Account) error
	LoadVerification(ctx context.Context, id string) (*verification.Verification, error)
	SaveVerification(ctx context.Context, v *verification.Verification) error
	// QueueDelivery appends a delivery.queued event that belongs to no
	// submission (a verification mail), to be queued by the delivery-queue
	// consumer group like every other delivery.
	QueueDelivery(ctx context.Context, q delivery.Queued) error
	// RecentVerificationRequests says when verifications were requested
	// since a time: of kind for the subject, to the address (any kind or
	// subject), and of kind by the account. It first locks the address and
	// the account until the transaction ends, so that concurrent requests
	// for either, in any process, are counted one after the other.
	RecentVerificationRequests(ctx context.Context, kind verification.Kind, subjectID, accountID, email string, since time.Time) (verification.RecentRequests, error)
	// PasswordResetRequests says when password resets were requested for
	// the address since a time, whether or not an account uses it; it first
	// locks the address until the transaction ends, as
	// RecentVerificationRequests does. RecordPasswordResetRequest counts one
	// more at a time.
	PasswordResetRequests(ctx context.Context, email string, since time.Time) ([]time.Time, error)
	RecordPasswordResetRequest(ctx context.Context, email string, at time.Time) error
	// CreateSession stores a session under the hash of its token.
	CreateSession(ctx context.Context, tokenHash []byte, accountID string, expiresAt time.Time) error
	// EndSessions ends every session of the account (a password reset): in
	// the transaction, so a new password and the old sessions never coexist.
	EndSessions(ctx context.Context, accountID string) error
	// EndSession ends the one session stored under tokenHash (a sign-out);
	// none is no error.
	EndSession(ctx context.Context, tokenHash []byte) error
	// StoreWebhookSecret keeps a form webhook's new sealed signing secret.
	// The form's secrets that were current stop signing at retireAt (none
	// when it is zero: the first secret).
	StoreWebhookSecret(ctx context.Context, s StoredWebhookSecret, retireAt time.Time) error
	// StoreCaptchaSecret keeps a form captcha's new sealed secret in place
	// of the one it had; DeleteCaptchaSecret removes it (the captcha is off,
	// or needs none).
	StoreCaptchaSecret(ctx context.Context, s StoredCaptchaSecret) error
	DeleteCaptchaSecret(ctx context.Context, formID string) error
}

// WebhookSecrets reads the sealed signing secrets of form webhooks.
type WebhookSecrets interface {
	// SigningSecrets lists the form's secrets that still sign at now: the
	// current one first, then rotated-out ones until they expire.
	SigningSecrets(ctx context.Context, formID string, now time.Time) ([]StoredWebhookSecret, error)
}

// ReadModel answers queries from projections kept by the adapters.
type ReadModel interface {
	SessionByTokenHash(ctx context.Context, tokenHash []byte, now time.Time) (AccountRecord, error)
	AccountByEmail(ctx context.Context, email string) (AccountRecord, error)
	FormsByAccount(ctx context.Context, accountID string) ([]FormRecord, error)
	FormByID(ctx context.Context, id string) (FormRecord, error)
	FormByAccessKeyHash(ctx context.Context, hash []byte) (FormRecord, error)
	VerificationByTokenHash(ctx context.Context, hash []byte) (VerificationRecord, error)
	LatestVerification(ctx context.Context, kind verification.Kind, subjectID string) (VerificationRecord, error)
	StreamHistory(ctx context.Context, streamID string) ([]HistoryEntry, error)
	// WorkspacesByAccount lists the account's workspaces, oldest first.
	WorkspacesByAccount(ctx context.Context, accountID string) ([]WorkspaceRecord, error)
}

// WorkspaceTokens reads workspace API tokens. Every control-plane call with a
// token looks it up here, in the database, with no cache: a deleted token
// stops at once, in every process.
type WorkspaceTokens interface {
	// ActiveTokenByHash finds the token whose SHA-256 is hash, unless it was
	// deleted or expired at now (domain.ErrNotFound).
	ActiveTokenByHash(ctx context.Context, hash []byte, now time.Time) (TokenRecord, error)
	// MarkTokenUsed sets the token's last use to at, unless it was last used
	// after staleBefore: a conditional UPDATE, so concurrent requests in any
	// number of processes write it at most once per interval.
	MarkTokenUsed(ctx context.Context, id string, at, staleBefore time.Time) error
	// TokenByID finds a token that was not deleted.
	TokenByID(ctx context.Context, id string) (TokenRecord, error)
	// TokensOfWorkspace lists the workspace's tokens that were not deleted,
	// expired ones included, oldest first.
	TokensOfWorkspace(ctx context.Context, workspaceID string) ([]TokenRecord, error)
}

// SubmissionCounts counts what forms accepted (a read model).
type SubmissionCounts interface {
	// SubmissionsByForm maps each of the account's forms that accepted live
	// submissions in month to how many; forms without any are absent.
	SubmissionsByForm(ctx context.Context, accountID string, month account.Month) (map[string]int, error)
}

// Entitlements says which paid or manually granted features an account has.
type Entitlements interface {
	Has(ctx context.Context, accountID, feature string) (bool, error)
}

// AccountPlans reads what accounts are on and have used: plans, manual
// grants and monthly quota usage (read models).
type AccountPlans interface {
	// AccountPlan reads an account with its plan and manual grants.
	AccountPlan(ctx context.Context, accountID string) (AccountPlanRecord, error)
	// PlanUsage reads an account's plan and how many submissions were
	// counted against its quota in month.
	PlanUsage(ctx context.Context, accountID string, month account.Month) (account.Plan, int, error)
}

// FormFloodLimits is a per-process first line of defence, like the per-IP
// limit: each form may be posted to at a sustained rate with a burst, so one
// noisy form cannot take a process's commits from the others. It is not a
// quota (those are counted in PostgreSQL): each process keeps its own.
type FormFloodLimits interface {
	// Allow takes a post for the form, or says how long to wait for one.
	Allow(formID string, now time.Time) (ok bool, retryAfter time.Duration)
}

// PasswordHasher hashes and checks passwords (Argon2id in production).
type PasswordHasher interface {
	Hash(password string) (string, error)
	Verify(password, encoded string) (bool, error)
}

// Later runs work after the request that asked for it is answered, so the
// answer's timing does not depend on that work (a password reset for an
// address with or without an account). Work a crash cuts off is lost: use
// it only for work its requester can ask for again.
type Later interface {
	Go(name string, work func(ctx context.Context) error)
}

// Clock tells the time; tests may fix it.
type Clock interface{ Now() time.Time }

// IDs makes new random identifiers (UUIDs).
type IDs interface{ New() string }

// LinkTokens derives the one-time token of a verification link from the
// verification id and the server secret, so the token itself is never stored.
// A token names the key that made it; after a key rotation the old key's
// tokens stay valid while that key is still accepted for reading.
type LinkTokens interface {
	// Token is the verification's token under the current key.
	Token(verificationID string) string
	// Tokens is the verification's token under each accepted key, the
	// current key's first: the mail of a verification requested before a
	// rotation carries the token it was requested with.
	Tokens(verificationID string) []string
	// Verify reports whether token was made for the verification by a key
	// that is still accepted.
	Verify(verificationID, token string) bool
}

// SubmissionForms finds the form a submission is routed to. It may answer
// from a short-lived cache unless fresh is set; the store re-checks the
// form's version when it commits, so a stale answer can never be committed.
type SubmissionForms interface {
	FormByAccessKey(ctx context.Context, accessKeyHash []byte, fresh bool) (FormRecord, error)
	// FormByID reads a form by its id, fresh: for a dry run its owner asks
	// for by id (the dashboard's playground), having no access key.
	FormByID(ctx context.Context, id string) (FormRecord, error)
}

// Sealer encrypts and decrypts submission payloads (AES-256-GCM).
type Sealer interface {
	Seal(submissionID string, plaintext []byte) (SealedPayload, error)
	Open(submissionID string, p SealedPayload) ([]byte, error)
}

// AutoresponderLimits allows one autoresponder per address per form per hour,
// counted in the database so every process shares it. Reserve takes the
// address's slot for this request and reports whether it got it; a retry of
// the same request gets it again.
type AutoresponderLimits interface {
	Reserve(ctx context.Context, formID, addressHash, requestID string, now time.Time) (bool, error)
}

// ValueHasher makes keyed hashes of field values, so events can say whether
// two submissions carried the same value without ever holding it.
type ValueHasher interface {
	HashValue(formID, field, value string) string
}

// SubmissionStore commits accepted submissions durably.
type SubmissionStore interface {
	// Accept commits the submission, its queued deliveries and its sealed
	// payload in one transaction before it returns. When an earlier request
	// with the same Idempotency-Key committed first, it commits nothing and
	// returns that request's response. When the form changed since its
	// version was read, it commits nothing and returns domain.ErrConcurrency.
	// It takes the autoresponder's slot in the same transaction.
	Accept(ctx context.Context, s AcceptedSubmission) (Acceptance, error)
	// IdempotentResponse finds the response of an earlier request with the
	// same key; nil when there is none.
	IdempotentResponse(ctx context.Context, formID, key string) (*StoredResponse, error)
}

// DeliveryStore keeps delivery state and the sealed payloads deliveries read.
type DeliveryStore interface {
	// RecordAttempts appends each attempt's outcome event and updates
	// delivery state in one transaction. A submission whose last pending
	// delivery became final loses its payload, and submission.redacted is
	// recorded, in that same transaction. An attempt someone else already
	// recorded (a duplicate run after a lost lease) is skipped.
	RecordAttempts(ctx context.Context, attempts []Attempt) error
	// ClaimDue leases deliveries that are due (new, or waiting for a retry),
	// so one worker of one process attempts each; a lease that runs out (the
	// process died mid-attempt) makes the delivery due again. Each comes
	// with its submission's sealed payload, when there is one still.
	ClaimDue(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]ClaimedDelivery, error)
}

// DeliveryQueue is the queue delivery workers claim from.
type DeliveryQueue interface {
	// Queue adds a delivery, due at once, unless it is already queued. It
	// writes in the transaction of the event message that ctx carries, the
	// one that acknowledges the message.
	Queue(ctx context.Context, q delivery.Queued) error
}

// Verifications finds verifications for the delivery workers, which rebuild
// a verification mail from its record at send time.
type Verifications interface {
	VerificationByID(ctx context.Context, id string) (VerificationRecord, error)
}

// PoisonedMessages keeps the event messages a consumer group can never
// handle, so the group records them and moves on instead of stalling.
type PoisonedMessages interface {
	// Record keeps the message in the transaction of the event message that
	// ctx carries, the one that acknowledges it: the message is skipped if
	// and only if it is recorded.
	Record(ctx context.Context, p PoisonedMessage) error
}

// WebhookSender posts webhooks.
type WebhookSender interface {
	Send(ctx context.Context, w Webhook) error
}

// Outbound makes the HTTP calls of integrations: webhooks and chat posts,
// Telegram messages and Google Sheets rows. One adapter makes them all, so
// every one dials through the same SSRF guard and its outcome means the
// same: nil is success, ErrPermanent no retry can help, ErrGone a target
// that is gone for good, anything else worth a retry.
type Outbound interface {
	WebhookSender
	// SendTelegram sends a Bot API sendMessage call with the operator's bot.
	SendTelegram(ctx context.Context, m TelegramMessage) error
	// AppendRow appends one row to a Google sheet as the operator's
	// service account.
	AppendRow(ctx context.Context, r SheetRow) error
}

// IntegrationServices tells which integration types this server can send
// to: Telegram needs the operator's bot token, Google Sheets a service
// account; webhooks and chat webhooks need nothing.
type IntegrationServices interface {
	Configured(t form.IntegrationType) bool
}

// IntegrationCodes keeps the pending one-time codes that prove a form's
// owner controls an integration's destination, each only by its SHA-256.
type IntegrationCodes interface {
	// Issue keeps the form's new code for the integration in place of any
	// code it had: one pending code per form and integration.
	Issue(ctx context.Context, formID string, t form.IntegrationType, codeHash []byte, expiresAt time.Time) error
	// Redeem takes the integration's unexpired code with this hash, once:
	// ok is false when there is none.
	Redeem(ctx context.Context, t form.IntegrationType, codeHash []byte, now time.Time) (formID string, ok bool, err error)
}

// TelegramBot is what connecting chats needs of the operator's bot.
type TelegramBot interface {
	// Updates long-polls the Bot API's getUpdates from offset for up to
	// wait.
	Updates(ctx context.Context, offset int64, wait time.Duration) ([]TelegramUpdate, error)
	// Username is the bot's @username without the @ (getMe), for links.
	Username(ctx context.Context) (string, error)
}

// TelegramPolls makes sure one process at a time polls the bot's updates
// and keeps the offset they are read from where every process sees it.
type TelegramPolls interface {
	// Poll runs fn with the next update id to read while holding the
	// polling lease, and stores the next id fn returns (also with an
	// error: updates before it were handled). ran is false, and fn is not
	// run, while another process holds the lease.
	Poll(ctx context.Context, fn func(next int64) (int64, error)) (ran bool, err error)
}

// SheetCells reads one cell of a Google spreadsheet as the operator's
// service account: where a form's owner proves they may write to it.
type SheetCells interface {
	ReadCell(ctx context.Context, spreadsheetID, a1 string) (string, error)
}

// IntegrationTestLimits counts a form's integration test calls in
// PostgreSQL, so the limit holds however many processes take them.
type IntegrationTestLimits interface {
	// Take counts one call of the form unless limit calls were taken in
	// the window before now; then ok is false and retryAfter says when
	// the oldest of them leaves the window.
	Take(ctx context.Context, formID string, limit int, window time.Duration, now time.Time) (ok bool, retryAfter time.Duration, err error)
}

// Mailer sends email (SMTP, or a spool folder in development).
type Mailer interface {
	Send(ctx context.Context, m Mail) error
}

// DeliveryLog reads the delivery log and re-queues failed deliveries.
type DeliveryLog interface {
	// FormDeliveries lists a form's deliveries newest first (created, then
	// id, descending), after the cursor when one is given, of the stored
	// kinds in the filter (all when empty) and the state when one is given;
	// at most limit of them. Deliveries of kinds the log never shows
	// (delivery.Listed) are left out.
	FormDeliveries(ctx context.Context, formID string, f DeliveryFilter) ([]DeliveryRecord, error)
	// DeliveryByID finds one delivery with the account its form belongs to.
	DeliveryByID(ctx context.Context, id string) (DeliveryRecord, error)
	// Requeue appends the retry event to the delivery's stream and makes
	// the delivery due at once, in one transaction. It refuses with
	// domain.ErrConcurrency a delivery no longer failed (a retry raced it),
	// and with ErrPayloadDeleted a submission's delivery whose sealed
	// payload was shredded meanwhile.
	Requeue(ctx context.Context, rec DeliveryRecord, e delivery.RetryRequested, md Metadata) (DeliveryRecord, error)
}

// Metrics counts what the use cases do, for operators (Prometheus in
// production). Calls sit on the submission hot path: an implementation must
// be cheap and safe for concurrent use. Every argument comes from a small
// fixed set (gate names, delivery kinds and states), never an id, address or
// key, so it can be a label.
type Metrics interface {
	// Submitted counts one /submit request: a live one or a dry run, its
	// outcome, and for a refusal the gate that refused it.
	Submitted(dryRun bool, outcome SubmissionOutcome, gate string)
	// DeliveryAttempted counts one recorded attempt by delivery kind and the
	// state it left the delivery in: succeeded, retrying or failed.
	DeliveryAttempted(kind, state string)
}

// CaptchaSecrets reads the sealed secrets of form captchas.
type CaptchaSecrets interface {
	// CaptchaSecret is the form's current captcha secret; domain.ErrNotFound
	// when it has none.
	CaptchaSecret(ctx context.Context, formID string) (StoredCaptchaSecret, error)
}

// CaptchaVerifier asks a captcha provider's verification API (siteverify)
// whether a token is genuine. An error means no verdict could be had (the
// provider is unreachable, slow, or answered something unreadable): the
// caller fails closed.
type CaptchaVerifier interface {
	Verify(ctx context.Context, t CaptchaToken) (submission.CaptchaOutcome, error)
}

// MalwareScanner scans an uploaded object's bytes (ClamAV's clamd). The
// name is the object's name, for the scanner's log only; the bytes never
// appear in an error. An error means the object could not be scanned (no
// scanner, a timeout, a size limit): the caller fails closed and treats the
// object as not clean.
type MalwareScanner interface {
	Scan(ctx context.Context, name string, r io.Reader) (ScanVerdict, error)
}

// ChallengeSigner signs formd's proof-of-work challenges with a key derived
// from the server secret, so a solution can only be for a challenge formd
// issued.
type ChallengeSigner interface {
	Sign(challenge string) string
	// Verify reports whether signature is the challenge's under a key that
	// is still accepted.
	Verify(challenge, signature string) bool
}

// SpentChallenges remembers the proof-of-work challenges whose solution was
// accepted, until they expire, in the database: every process refuses a
// replay.
type SpentChallenges interface {
	// Spend records the challenge as used and reports whether it was new;
	// false means it was spent before.
	Spend(ctx context.Context, challenge string, expiresAt time.Time) (bool, error)
}

// ObjectStore keeps the objects of advanced uploads (GET /upload): an
// S3-compatible bucket in production, or formd's built-in store in
// PostgreSQL. Keys are the upload keys formd made; an object's bytes never
// appear in an error.
type ObjectStore interface {
	// Put stores the object under key: exactly size bytes of r, or an error.
	// It never replaces an object (ErrObjectExists): the bytes a scan
	// passed are the bytes a submission consumes and recipients download.
	Put(ctx context.Context, key string, r io.Reader, size int64, contentType string) error
	// Open reads the object and says how large it is; domain.ErrNotFound
	// when nothing was uploaded under key.
	Open(ctx context.Context, key string) (io.ReadCloser, int64, error)
	// Delete removes the object; one that is not there is not an error.
	Delete(ctx context.Context, key string) error
}

// ObjectLinks makes the signed, expiring URLs clients upload objects to and
// recipients download them from: presigned URLs of the bucket, or URLs of
// formd's own object routes for the built-in store.
type ObjectLinks interface {
	// UploadTarget is how a client uploads one object straight to storage.
	UploadTarget(ctx context.Context, u ObjectUpload) (UploadTarget, error)
	// DownloadURL is a link that serves the object as an attachment named
	// d.Name until d.Expires.
	DownloadURL(ctx context.Context, d ObjectDownload) (string, error)
	// Verify reports whether a request to formd's own object routes was
	// signed for op on key until expires. Links that point elsewhere (a
	// bucket's) never verify here.
	Verify(op ObjectOp, key string, expires time.Time, signature string) bool
}

// UploadReservations keeps the reservations of advanced uploads in
// PostgreSQL, so every process sees the same keys, verdicts and uses. A
// reservation is consumed by the commit of the submission that uses it
// (AcceptedSubmission.Uploads), never here.
type UploadReservations interface {
	// Reserve stores a new reservation.
	Reserve(ctx context.Context, r UploadReservation) error
	// Reservation finds one by key; domain.ErrNotFound when there is none
	// (never reserved, or cleaned up).
	Reservation(ctx context.Context, key string) (UploadReservation, error)
	// RecordUpload notes that the object arrived through formd (the built-in
	// store), unless the reservation expired or was consumed meanwhile:
	// domain.ErrNotFound then.
	RecordUpload(ctx context.Context, key string, size int64, at time.Time) error
	// RecordScan keeps the scanner's verdict and what the content was
	// sniffed as.
	RecordScan(ctx context.Context, key string, s ObjectScan) error
	// DueForCleanup lists up to limit keys whose object and reservation may
	// go: reservations never consumed that expired, and consumed ones whose
	// links expired and whose submission's payload was shredded.
	DueForCleanup(ctx context.Context, now time.Time, limit int) ([]string, error)
	// Forget removes the reservation of a key whose object was deleted.
	Forget(ctx context.Context, key string) error
}

// ContentSniffer says what a file is from its first bytes (its signature),
// whatever its name or declared type claim.
type ContentSniffer interface {
	// Sniff is the type head is detected as, then every type that one is
	// a kind of, lower-case; head is at most SniffBytes long.
	Sniff(head []byte) []string
	// Canonical is a declared media type without parameters, lower-case,
	// under its canonical name when it is known by an alias; "" when it
	// cannot be parsed.
	Canonical(declared string) string
}

// TestInboxStore keeps the sealed renderings of test submissions for a
// short time, in PostgreSQL so every process sees the same inbox.
type TestInboxStore interface {
	// AddTestSubmission keeps one, and keeps at most keep per form (the
	// oldest go first).
	AddTestSubmission(ctx context.Context, s StoredTestSubmission, keep int) error
	// TestSubmissions lists a form's unexpired test submissions, newest
	// first, filtered.
	TestSubmissions(ctx context.Context, formID string, f TestInboxFilter, now time.Time) ([]StoredTestSubmission, error)
	// ClearTestInbox deletes every test submission of a form.
	ClearTestInbox(ctx context.Context, formID string) (int, error)
	// DeleteExpiredTestSubmissions deletes those past their retention.
	DeleteExpiredTestSubmissions(ctx context.Context, now time.Time) (int, error)
}
