package application

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"strings"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/submission"
)

// SuccessMessage is the spec's success message.
const SuccessMessage = "Email sent successfully!"

// DryRunMessage answers a dry run that passed every gate.
const DryRunMessage = "Dry run passed: every gate accepts this submission. Nothing was queued."

// Submit is a post to /submit or /submit/{accessKey}.
type Submit struct {
	// PathAccessKey is the key of /submit/{accessKey}; it wins over the body's.
	PathAccessKey string
	// Fields in submitted order; repeated names already joined with commas.
	Fields         []submission.Field
	Files          []UploadedFile
	Origin         string
	Referer        string
	RemoteIP       string
	DryRun         bool
	JSONClient     bool
	IdempotencyKey string
	RequestID      string
}

// UploadedFile describes a file part of a multipart post.
type UploadedFile struct {
	Field       string
	Filename    string
	ContentType string
}

// SubmissionResponse is the spec's SubmissionResponse.
type SubmissionResponse struct {
	Success                 bool                    `json:"success"`
	Message                 string                  `json:"message"`
	RequestID               string                  `json:"requestId,omitempty"`
	DeliveryID              string                  `json:"deliveryId,omitempty"`
	AutoresponderDeliveryID string                  `json:"autoresponderDeliveryId,omitempty"`
	WebhookDeliveryIDs      []string                `json:"webhookDeliveryIds"`
	NotificationDeliveryIDs []string                `json:"notificationDeliveryIds"`
	DryRun                  bool                    `json:"dryRun,omitempty"`
	Errors                  []submission.FieldError `json:"errors,omitempty"`
	Validation              *DryRunValidation       `json:"validation,omitempty"`
	Gates                   []GateResult            `json:"gates,omitempty"`
	Body                    ResponseBody            `json:"body"`
}

// DryRunValidation is SubmissionResponse.validation.
type DryRunValidation struct {
	DeliveryQueued    bool     `json:"deliveryQueued"`
	FieldNames        []string `json:"fieldNames"`
	RecipientVerified bool     `json:"recipientVerified"`
}

// ResponseBody echoes the submitted custom fields.
type ResponseBody struct {
	Data    map[string]string `json:"data"`
	Message string            `json:"message"`
}

// SubmitOutcome is an accepted submission (or a passed dry run).
type SubmitOutcome struct {
	Response SubmissionResponse
	// Redirect is where a plain HTML post goes next; empty means the hosted success page.
	Redirect string
}

// SubmissionRejected is a submission refused by a gate. It carries the
// response a JavaScript client gets (400).
type SubmissionRejected struct {
	Gate     string
	Response SubmissionResponse
}

func (e *SubmissionRejected) Error() string { return e.Response.Message }

// ErrIdempotencyMismatch means an Idempotency-Key was reused for a different submission.
var ErrIdempotencyMismatch = domain.Invalid("Idempotency-Key", "this Idempotency-Key was already used for a different submission")

// SubmitHandler runs the gates and commits accepted submissions.
type SubmitHandler struct {
	forms  SubmissionForms
	store  SubmissionStore
	ent    Entitlements
	sealer Sealer
	hasher ValueHasher
	ids    IDs
	clock  Clock
}

// NewSubmitHandler builds the handler.
func NewSubmitHandler(forms SubmissionForms, store SubmissionStore, ent Entitlements, sealer Sealer, hasher ValueHasher, ids IDs, clock Clock) *SubmitHandler {
	if forms == nil || store == nil || ent == nil || sealer == nil || hasher == nil || ids == nil || clock == nil {
		panic("application: nil dependency of SubmitHandler")
	}
	return &SubmitHandler{forms: forms, store: store, ent: ent, sealer: sealer, hasher: hasher, ids: ids, clock: clock}
}

// maxStaleRetries bounds re-evaluation when the form changes under a submission.
const maxStaleRetries = 3

// Handle runs every gate in order and, for a live submission that passes,
// commits it with its deliveries before returning.
func (h *SubmitHandler) Handle(ctx context.Context, cmd Submit) (SubmitOutcome, error) {
	env, data := submission.Split(cmd.Fields)
	key := env.AccessKey
	if cmd.PathAccessKey != "" {
		key = cmd.PathAccessKey
	}
	if key == "" {
		return SubmitOutcome{}, h.reject(cmd, data, GateAccessKey, MsgAccessKeyMissing, nil, nil, false)
	}
	fresh := false
	keyHash := HashSecret(key)
	for attempt := 0; ; attempt++ {
		rec, err := h.forms.FormByAccessKey(ctx, keyHash, fresh)
		if errors.Is(err, domain.ErrNotFound) {
			return SubmitOutcome{}, h.reject(cmd, data, GateAccessKey, MsgAccessKeyUnknown, nil, nil, false)
		}
		if err != nil {
			return SubmitOutcome{}, err
		}
		if cmd.IdempotencyKey != "" && !cmd.DryRun {
			prior, err := h.store.IdempotentResponse(ctx, rec.ID, cmd.IdempotencyKey)
			if err != nil {
				return SubmitOutcome{}, err
			}
			if prior != nil {
				return h.replay(cmd, key, data, prior)
			}
		}
		g, err := h.evaluate(ctx, cmd, rec, env, data)
		if err != nil {
			return SubmitOutcome{}, err
		}
		if g.failed != nil && !fresh {
			fresh = true // a cached form may be stale: judge a rejection on fresh data
			continue
		}
		if g.failed != nil {
			return SubmitOutcome{}, h.reject(cmd, data, g.failed.Gate, g.failed.Message, g, &rec, true)
		}
		if cmd.DryRun {
			return SubmitOutcome{Response: h.dryRunResponse(cmd, data, g, rec, true, DryRunMessage)}, nil
		}
		out, err := h.accept(ctx, cmd, key, rec, env, data)
		if errors.Is(err, domain.ErrConcurrency) && attempt < maxStaleRetries {
			fresh = true // the form changed since it was read: judge again
			continue
		}
		return out, err
	}
}

func fieldNames(data []submission.Field) []string {
	names := make([]string, len(data))
	for i, f := range data {
		names[i] = f.Name
	}
	return names
}

func echo(data []submission.Field) map[string]string {
	m := make(map[string]string, len(data))
	for _, f := range data {
		m[f.Name] = f.Value
	}
	return m
}

func (h *SubmitHandler) dryRunResponse(cmd Submit, data []submission.Field, g *gateRun, rec FormRecord, success bool, msg string) SubmissionResponse {
	return SubmissionResponse{
		Success: success, Message: msg, RequestID: cmd.RequestID, DryRun: true,
		WebhookDeliveryIDs: []string{}, NotificationDeliveryIDs: []string{},
		Validation: &DryRunValidation{DeliveryQueued: false, FieldNames: fieldNames(data), RecipientVerified: rec.RecipientVerified},
		Gates:      g.results, Errors: g.errors,
		Body: ResponseBody{Data: echo(data), Message: msg},
	}
}

func (h *SubmitHandler) reject(cmd Submit, data []submission.Field, gate, msg string, g *gateRun, rec *FormRecord, known bool) error {
	resp := SubmissionResponse{Success: false, Message: msg, RequestID: cmd.RequestID,
		WebhookDeliveryIDs: []string{}, NotificationDeliveryIDs: []string{}, Body: ResponseBody{Data: echo(data), Message: msg}}
	if g != nil {
		resp.Errors = g.errors
	}
	if cmd.DryRun {
		if g == nil {
			g = &gateRun{results: []GateResult{{Gate: GateAccessKey, Outcome: OutcomeFailed, Message: msg}}}
		}
		r := FormRecord{}
		if rec != nil {
			r = *rec
		}
		resp = h.dryRunResponse(cmd, data, g, r, false, msg)
	}
	return &SubmissionRejected{Gate: gate, Response: resp}
}

// requestHash identifies a submission's content for Idempotency-Key reuse checks.
func requestHash(key string, fields []submission.Field) []byte {
	h := sha256.New()
	h.Write([]byte(key))
	for _, f := range fields {
		h.Write([]byte{0})
		h.Write([]byte(f.Name))
		h.Write([]byte{0})
		h.Write([]byte(f.Value))
	}
	return h.Sum(nil)
}

func (h *SubmitHandler) replay(cmd Submit, key string, data []submission.Field, prior *StoredResponse) (SubmitOutcome, error) {
	if string(prior.RequestHash) != string(requestHash(key, cmd.Fields)) {
		return SubmitOutcome{}, ErrIdempotencyMismatch
	}
	resp := prior.Response
	resp.Body.Data = echo(data)
	return SubmitOutcome{Response: resp, Redirect: prior.Redirect}, nil
}

// accept plans the deliveries, seals the payload and commits.
func (h *SubmitHandler) accept(ctx context.Context, cmd Submit, key string, rec FormRecord, env submission.Envelope, data []submission.Field) (SubmitOutcome, error) {
	now := h.clock.Now()
	st := rec.Settings
	submissionID := h.ids.New()
	resp := SubmissionResponse{Success: true, Message: SuccessMessage, RequestID: cmd.RequestID,
		WebhookDeliveryIDs: []string{}, NotificationDeliveryIDs: []string{},
		Body: ResponseBody{Message: SuccessMessage}}

	var refs []submission.DeliveryRef
	plan := func(kind string) string {
		id := h.ids.New()
		refs = append(refs, submission.DeliveryRef{ID: id, Kind: kind})
		return id
	}
	resp.DeliveryID = plan(delivery.KindEmail)
	payload := Payload{
		Fields: data, Recipient: st.RecipientEmail, FormName: st.Name,
		Subject:  oneLine(firstNonBlank(env.Subject, st.SubjectDefault, "New submission: "+st.Name)),
		FromName: oneLine(firstNonBlank(env.FromName, st.FromNameDefault, form.DefaultFromName)),
		ReplyTo:  replyTo(st, env), CC: submission.SplitCC(env.CC), SubmitterEmail: env.Email,
	}
	if st.Autoresponder.Enabled && domain.IsEmailAddress(env.Email) {
		resp.AutoresponderDeliveryID = plan(delivery.KindAutoresponder)
		payload.Autoresponder = &AutoresponderMail{
			Subject: firstNonBlank(st.Autoresponder.Subject, "We received your message"),
			Message: firstNonBlank(st.Autoresponder.Message, "Thank you. We received your submission and will get back to you."),
		}
	}
	if env.Webhook != "" {
		resp.WebhookDeliveryIDs = append(resp.WebhookDeliveryIDs, plan(delivery.KindWebhook))
		payload.Webhook = env.Webhook
	}

	plaintext, err := json.Marshal(payload)
	if err != nil {
		return SubmitOutcome{}, err
	}
	sealed, err := h.sealer.Seal(submissionID, plaintext)
	if err != nil {
		return SubmitOutcome{}, err
	}
	hashes := make(map[string]string, len(data))
	for _, f := range data {
		hashes[f.Name] = h.hasher.HashValue(rec.ID, f.Name, f.Value)
	}
	queued := make([]delivery.Queued, len(refs))
	for i, r := range refs {
		queued[i] = delivery.Queued{DeliveryID: r.ID, SubmissionID: submissionID, FormID: rec.ID, Kind: r.Kind, At: now}
	}
	redirect := ""
	if !cmd.JSONClient {
		redirect = firstNonBlank(env.Redirect, st.RedirectDefault)
	}
	stored := StoredResponse{Response: resp, Redirect: redirect}
	if cmd.IdempotencyKey != "" { // only a keyed retry is ever compared
		stored.RequestHash = requestHash(key, cmd.Fields)
	}
	prior, err := h.store.Accept(ctx, AcceptedSubmission{
		FormID: rec.ID, FormVersion: rec.Version, IdempotencyKey: cmd.IdempotencyKey,
		Metadata: Metadata{Actor: Actor{Type: "submitter", ID: cmd.RemoteIP}, AccountID: rec.AccountID, RequestID: cmd.RequestID},
		Accepted: submission.Accepted{
			SubmissionID: submissionID, FormID: rec.ID, RequestID: cmd.RequestID,
			FieldNames: fieldNames(data), ValueHashes: hashes, Deliveries: refs, At: now,
		},
		Queued: queued, Payload: sealed, Response: stored,
	})
	if err != nil {
		return SubmitOutcome{}, err
	}
	if prior != nil {
		return h.replay(cmd, key, data, prior)
	}
	resp.Body.Data = echo(data)
	return SubmitOutcome{Response: resp, Redirect: redirect}, nil
}

// replyTo follows the form's reply-to mode; a per-submit replyto overrides
// it unless the mode is none.
func replyTo(st form.Settings, env submission.Envelope) string {
	switch st.ReplyToMode {
	case form.ReplyToNone:
		return ""
	case form.ReplyToDefault:
		return firstNonBlank(env.ReplyTo, st.ReplyToDefault)
	default:
		if env.ReplyTo != "" {
			return env.ReplyTo
		}
		if domain.IsEmailAddress(env.Email) {
			return env.Email
		}
		return ""
	}
}

// oneLine keeps a header value on one line: submitted line breaks must never
// become extra mail headers.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func firstNonBlank(values ...string) string {
	for _, v := range values {
		if strings.TrimSpace(v) != "" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
