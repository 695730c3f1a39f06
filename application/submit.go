package application

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/submission"
)

// Submit is a post to /submit or /submit/{accessKey}.
type Submit struct {
	// PathAccessKey is the key of /submit/{accessKey}; it wins over the body's.
	PathAccessKey string
	// FormID names the form of a dry run instead of an access key: the
	// dashboard's playground, whose caller has checked that the signed-in
	// person owns the form (formd keeps only the key's hash). Only a dry run
	// may name a form this way.
	FormID string
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
	// Test marks a test submission (X-Service-Test): judged like a live one,
	// it sends nothing and is rendered into the form's test inbox. Tester is
	// the credential that asked, which needs the submissions:test scope
	// unless the form is in test mode (every submission is then a test).
	Test   bool
	Tester *Session
	// AcceptLanguage is the visitor's Accept-Language: the language of
	// formd's default autoresponder when the form sets none.
	AcceptLanguage string
}

// UploadedFile is a file part of a multipart post: what the domain judges
// (File: name, declared and sniffed types, size) and, once accepted, the
// content sealed with the submission's payload.
type UploadedFile struct {
	submission.File
	Content []byte
}

// files are the metadata of uploaded files, as the gates judge them.
func files(up []UploadedFile) []submission.File {
	if len(up) == 0 {
		return nil
	}
	out := make([]submission.File, len(up))
	for i, f := range up {
		out[i] = f.File
	}
	return out
}

// SubmitHandler has the domain judge a submission and commits the accepted
// ones with their deliveries.
type SubmitHandler struct {
	forms  SubmissionForms
	store  SubmissionStore
	ent    Entitlements
	plans  AccountPlans
	sealer Sealer
	hasher ValueHasher
	ids    IDs
	clock  Clock

	floods   FormFloodLimits
	quotas   account.Quotas
	captchas *CaptchaChecks
	spam     *SpamChecks
	uploads  *UploadIntake
	tests    *TestInbox
	// handOff takes the deliveries whose commit claimed them for this
	// process's delivery workers.
	handOff DeliveryHandOff
	// messages word the default autoresponder in the submitter's language;
	// nil keeps it English.
	messages Messages
}

// NewSubmitHandler builds the use case wrapped in its decorators (see
// SubmitCommand); every dependency is required, and every plan needs a
// quota of at least one. While no delivery workers have
// opened handOff, every delivery is left for them to claim.
func NewSubmitHandler(forms SubmissionForms, store SubmissionStore, ent Entitlements, plans AccountPlans, sealer Sealer, hasher ValueHasher,
	ids IDs, clock Clock, floods FormFloodLimits, quotas account.Quotas, metrics Metrics,
	captchas *CaptchaChecks, spam *SpamChecks, uploads *UploadIntake, tests *TestInbox, handOff DeliveryHandOff, intake IntakeCounter,
	messages Messages) SubmitCommand {
	if forms == nil || store == nil || ent == nil || plans == nil || sealer == nil || hasher == nil || ids == nil || clock == nil ||
		floods == nil || metrics == nil || captchas == nil || spam == nil || uploads == nil || tests == nil ||
		handOff == nil || intake == nil {
		panic("application: nil dependency of SubmitHandler")
	}
	for _, p := range account.Plans {
		if quotas.Of(p) < 1 {
			panic("application: the " + string(p) + " plan has no monthly quota")
		}
	}
	h := &SubmitHandler{forms: forms, store: store, ent: ent, plans: plans, sealer: sealer, hasher: hasher, ids: ids, clock: clock,
		floods: floods, quotas: quotas, captchas: captchas, spam: spam, uploads: uploads, tests: tests,
		handOff: handOff, messages: messages}
	return countedIntake{next: measuredSubmit{next: h, metrics: metrics}, intake: intake}
}

// FloodGate names a refusal by the per-form flood limit in metrics: not a
// gate of the domain's but a process's first line of defence.
const FloodGate = "form_rate_limit"

// MsgFormFlooded answers a post to a form that is posted to faster than
// FORMD_FORM_SUBMIT_RATE allows.
const MsgFormFlooded = "Too many submissions to this form right now. Try again in a moment."

// maxStaleRetries bounds re-evaluation when the form changes under a submission.
const maxStaleRetries = 3

// Handle routes the submission to its form and asks the domain for a
// decision; it asks again on fresh data when a cached form refused it, when
// the form's captcha secret was replaced, or when the form changed before
// the commit. A live submission the gates accept is committed with its
// deliveries before Handle returns.
func (h *SubmitHandler) Handle(ctx context.Context, cmd Submit) (out SubmitOutcome, err error) {
	if cmd.FormID != "" && !cmd.DryRun {
		return SubmitOutcome{}, errors.New("application: only a dry run may name its form by id")
	}
	h.uploads.sniffParts(cmd.Files)
	s := newSubmitting(cmd)
	defer func() { // the hosted pages are the form's, when it is known
		out.FormID = s.formID
		if rejected := (*SubmissionRejected)(nil); errors.As(err, &rejected) {
			rejected.FormID = s.formID
		}
	}()
	if !s.facts.Request.NamesForm {
		return SubmitOutcome{}, s.refuse(submission.Decide(s.facts), false)
	}
	for attempt := 0; ; attempt++ {
		rec, err := h.route(ctx, s)
		if errors.Is(err, domain.ErrNotFound) {
			return SubmitOutcome{}, s.refuse(submission.Decide(s.facts), false)
		}
		if err != nil {
			return SubmitOutcome{}, err
		}
		s.formID = rec.ID
		test, err := h.admit(s, rec, attempt == 0)
		if err != nil {
			return SubmitOutcome{}, err
		}
		if err := s.refusedAgain(rec); err != nil {
			return SubmitOutcome{}, err
		}
		prior, err := h.prior(ctx, s, rec.ID, test)
		if err != nil {
			return SubmitOutcome{}, err
		}
		if prior != nil {
			return replay(cmd, s.key, s.data, prior)
		}
		if err := h.resolveUploads(ctx, s, rec.ID); err != nil {
			return SubmitOutcome{}, err
		}
		d, err := h.decide(ctx, s, rec, test)
		switch {
		case errors.Is(err, errStaleCaptcha):
			s.fresh = true // the cached form names a captcha secret that was replaced: read it again
			continue
		case err != nil:
			return SubmitOutcome{}, err
		case d.Refusal() != nil && !s.fresh:
			s.fresh = true // a cached form may be stale: judge a rejection on fresh data, if it changed
			s.refusedBy, s.refusal = &rec, d
			continue
		case d.Refusal() != nil:
			return SubmitOutcome{}, s.refuse(d, rec.RecipientVerified)
		}
		if bad := h.scanOnce(ctx, s); bad != nil {
			return SubmitOutcome{}, s.rejection(submission.UploadRefused(cmd.DryRun, *bad), rec.RecipientVerified)
		}
		switch {
		case cmd.DryRun:
			return SubmitOutcome{Response: withRoutingTrace(dryRunResponse(cmd, s.data, d.Verdict(), rec.RecipientVerified), d.Plan())}, nil
		case test:
			return h.acceptTest(ctx, s, rec, d)
		}
		out, err := h.accept(ctx, s, rec, d)
		if errors.Is(err, domain.ErrConcurrency) && attempt < maxStaleRetries {
			s.fresh = true // the form changed since it was read: judge again
			continue
		}
		return out, s.refusedAtCommit(err, rec)
	}
}

// admit lets the submission to rec in before any work is done for it: a
// test submission needs a credential that may test the form, and on the
// first attempt the form's flood limit must have room, so that a flood of
// one form does not take the process's judging and commits from the
// others. test reports whether it is a test submission.
func (h *SubmitHandler) admit(s *submitting, rec FormRecord, first bool) (test bool, err error) {
	cmd := s.cmd
	test = !cmd.DryRun && (cmd.Test || rec.Settings.TestMode)
	if cmd.Test && !cmd.DryRun && !rec.Settings.TestMode {
		if err := authorizeTest(cmd.Tester, rec); err != nil {
			return test, err
		}
	}
	if first {
		if ok, wait := h.floods.Allow(rec.ID, h.clock.Now()); !ok {
			return test, &domain.TooManyRequestsError{Message: MsgFormFlooded, RetryAfter: wait}
		}
	}
	return test, nil
}

// prior is the stored response of an earlier request with the submission's
// Idempotency-Key; nil when there is none. A test's key only names it in
// the inbox, and a dry run commits nothing to compare with.
func (h *SubmitHandler) prior(ctx context.Context, s *submitting, formID string, test bool) (*StoredResponse, error) {
	if s.cmd.IdempotencyKey == "" || s.cmd.DryRun || test {
		return nil, nil
	}
	return h.store.IdempotentResponse(ctx, formID, s.cmd.IdempotencyKey)
}

// scanOnce has the malware scanner scan the multipart parts, once per
// request, and returns the first it refused. Scanning costs clamd a pass
// over every byte: only files every gate accepted (the form takes uploads,
// the account may) go.
func (h *SubmitHandler) scanOnce(ctx context.Context, s *submitting) *submission.File {
	if s.scanned {
		return nil
	}
	s.scanned = true
	return h.uploads.scanParts(ctx, s.cmd.Files)
}

// route finds the form a submission is for: by its access key, or by id
// for an owner's dry run.
func (h *SubmitHandler) route(ctx context.Context, s *submitting) (FormRecord, error) {
	if s.cmd.FormID != "" {
		return h.forms.FormByID(ctx, s.cmd.FormID)
	}
	return h.forms.FormByAccessKey(ctx, s.keyHash, s.fresh)
}

// decide asks the domain for its decision on the submission to rec and
// answers what it asks: the entitlements it consults (none for a plain
// browser post), the quota usage a dry run or a test reads, the captcha
// token's verification, made once per request, and the content
// classifier's answer, asked before the commit, never inside it.
func (h *SubmitHandler) decide(ctx context.Context, s *submitting, rec FormRecord, test bool) (submission.Decision, error) {
	facts := s.facts
	facts.Request.Test = test
	facts.Form = &submission.Target{Settings: rec.Settings, RecipientVerified: rec.RecipientVerified, VerifiedRoutes: rec.VerifiedRoutes}
	facts.Integrations = rec.Integrations
	facts.Request.SpamClassifier = h.spam.configured()
	facts.AutoresponderDefaults = h.autoresponderDefaults(rec.Settings, s.cmd.AcceptLanguage)
	// Each answer settles what was asked, so a decision asks at most once
	// for each of its lookups (entitlements and usage together, the
	// captcha, the classifier); a fourth question would be a loop.
	for range 4 {
		d := submission.Decide(facts)
		q, asks := d.Question()
		if !asks {
			return d, nil
		}
		if facts.Entitlements == nil {
			ent, err := heldEntitlements(ctx, h.ent, rec.AccountID, q.Features...)
			if err != nil {
				return submission.Decision{}, err
			}
			facts.Entitlements = &ent
		}
		if q.Usage {
			u, err := h.usage(ctx, rec.AccountID, h.clock.Now())
			if err != nil {
				return submission.Decision{}, err
			}
			facts.Form.Usage = &u
		}
		if q.Captcha != nil {
			outcome, err := s.captcha.outcome(ctx, h.captchas, rec, *q.Captcha, facts.Request.RemoteIP, s.fresh)
			if err != nil {
				return submission.Decision{}, err
			}
			facts.Request.Captcha = &outcome
		}
		if q.Spam != nil {
			c := s.spam.classification(ctx, h.spam, rec.ID, s.cmd.RequestID, *q.Spam)
			facts.Request.Classification = &c
		}
	}
	return submission.Decision{}, errors.New("application: the submission's decision kept asking for what it was given")
}

// usage is the account's quota usage in the month of now.
func (h *SubmitHandler) usage(ctx context.Context, accountID string, now time.Time) (account.Usage, error) {
	month := account.MonthOf(now)
	plan, used, err := h.plans.PlanUsage(ctx, accountID, month)
	if err != nil {
		return account.Usage{}, err
	}
	return account.Usage{Plan: plan, Quota: h.quotas.Of(plan), Used: used, Month: month}, nil
}

// autoresponderDefaults are formd's autoresponder words in the form's
// language, else the submitter's (acceptLanguage); none when the form sends
// no autoresponder, words both parts itself, or has no catalogs to word it
// (the words are looked up on every submission to such a form, so only
// when they will be sent).
func (h *SubmitHandler) autoresponderDefaults(st form.Settings, acceptLanguage string) submission.MailText {
	own := st.Autoresponder
	if !own.Enabled || h.messages == nil || (strings.TrimSpace(own.Subject) != "" && strings.TrimSpace(own.Message) != "") {
		return submission.MailText{}
	}
	lang := h.messages.Language(st.Language, acceptLanguage)
	return submission.MailText{Subject: h.messages.Text(lang, "mail.autoresponder.subject", nil),
		Message: h.messages.Text(lang, "mail.autoresponder.message", nil)}
}
