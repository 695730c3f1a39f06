package application

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
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

	autoresponders AutoresponderLimits
	floods         FormFloodLimits
	quotas         account.Quotas
	metrics        Metrics
	captchas       *CaptchaChecks
	uploads        *UploadIntake
	tests          *TestInbox
	// handOff takes the deliveries whose commit claimed them for this
	// process's delivery workers.
	handOff *DeliveryHandOff
}

// NewSubmitHandler builds the handler; every dependency is required, and
// every plan needs a quota of at least one. While no delivery workers have
// opened handOff, every delivery is left for them to claim.
func NewSubmitHandler(forms SubmissionForms, store SubmissionStore, ent Entitlements, plans AccountPlans, sealer Sealer, hasher ValueHasher,
	ids IDs, clock Clock, autoresponders AutoresponderLimits, floods FormFloodLimits, quotas account.Quotas, metrics Metrics,
	captchas *CaptchaChecks, uploads *UploadIntake, tests *TestInbox, handOff *DeliveryHandOff) *SubmitHandler {
	if forms == nil || store == nil || ent == nil || plans == nil || sealer == nil || hasher == nil || ids == nil || clock == nil ||
		autoresponders == nil || floods == nil || metrics == nil || captchas == nil || uploads == nil || tests == nil ||
		handOff == nil {
		panic("application: nil dependency of SubmitHandler")
	}
	for _, p := range account.Plans {
		if quotas.Of(p) < 1 {
			panic("application: the " + string(p) + " plan has no monthly quota")
		}
	}
	return &SubmitHandler{forms: forms, store: store, ent: ent, plans: plans, sealer: sealer, hasher: hasher, ids: ids, clock: clock,
		autoresponders: autoresponders, floods: floods, quotas: quotas, metrics: metrics, captchas: captchas, uploads: uploads, tests: tests,
		handOff: handOff}
}

// FloodGate names a refusal by the per-form flood limit in metrics: not a
// gate of the domain's but a process's first line of defence.
const FloodGate = "form_rate_limit"

// MsgFormFlooded answers a post to a form that is posted to faster than
// FORMD_FORM_SUBMIT_RATE allows.
const MsgFormFlooded = "Too many submissions to this form right now. Try again in a moment."

// maxStaleRetries bounds re-evaluation when the form changes under a submission.
const maxStaleRetries = 3

// Handle judges the submission and, for a live one the gates accept, commits
// it with its deliveries before returning.
func (h *SubmitHandler) Handle(ctx context.Context, cmd Submit) (SubmitOutcome, error) {
	h.handOff.intake.Begin()
	defer h.handOff.intake.End() // deferred: a panic must not leave intake counted saturated
	out, err := h.handle(ctx, cmd)
	var rejected *SubmissionRejected
	var flooded *domain.TooManyRequestsError
	switch {
	case errors.As(err, &rejected):
		h.metrics.Submitted(cmd.DryRun, SubmissionRefused, rejected.Gate)
	case errors.As(err, &flooded):
		h.metrics.Submitted(cmd.DryRun, SubmissionRefused, FloodGate)
	case err != nil:
		h.metrics.Submitted(cmd.DryRun, SubmissionError, "")
	case out.Replayed:
		h.metrics.Submitted(cmd.DryRun, SubmissionReplayed, "")
	default:
		h.metrics.Submitted(cmd.DryRun, SubmissionAccepted, "")
	}
	return out, err
}

func (h *SubmitHandler) handle(ctx context.Context, cmd Submit) (SubmitOutcome, error) {
	h.uploads.sniffParts(cmd.Files)
	env, data := submission.Split(cmd.Fields)
	key := env.AccessKey
	if cmd.PathAccessKey != "" {
		key = cmd.PathAccessKey
	}
	if cmd.FormID != "" && !cmd.DryRun {
		return SubmitOutcome{}, errors.New("application: only a dry run may name its form by id")
	}
	if key == "" && cmd.FormID == "" {
		return SubmitOutcome{}, rejection(cmd, data, submission.NoForm(cmd.DryRun, true), false)
	}
	req := submission.Request{Fields: cmd.Fields, Envelope: env, Origin: cmd.Origin, Referer: cmd.Referer,
		RemoteIP: cmd.RemoteIP, Files: files(cmd.Files), JSONClient: cmd.JSONClient, DryRun: cmd.DryRun}
	fresh := false
	keyHash := HashSecret(key)
	var refused *FormRecord // the cached form a first judgement refused
	var refusal submission.Verdict
	var captcha captchaMemo
	var in *resolved // the fields once upload keys became files, for the form they were resolved for
	var inForm string
	scanned := false // the multipart parts went to the malware scanner
	for attempt := 0; ; attempt++ {
		rec, err := h.route(ctx, cmd, keyHash, fresh)
		if errors.Is(err, domain.ErrNotFound) {
			return SubmitOutcome{}, rejection(cmd, data, submission.NoForm(cmd.DryRun, false), false)
		}
		if err != nil {
			return SubmitOutcome{}, err
		}
		test := !cmd.DryRun && (cmd.Test || rec.Settings.TestMode)
		if cmd.Test && !cmd.DryRun && !rec.Settings.TestMode {
			if err := authorizeTest(cmd.Tester, rec); err != nil {
				return SubmitOutcome{}, err
			}
		}
		if attempt == 0 && refused == nil {
			// Before any work for the form: a flood of one form must not
			// take the process's judging and commits from the others.
			if ok, wait := h.floods.Allow(rec.ID, h.clock.Now()); !ok {
				return SubmitOutcome{}, &domain.TooManyRequestsError{Message: MsgFormFlooded, RetryAfter: wait}
			}
		}
		// Judging is not free (a form's regex rules may spend the whole
		// matching budget): the same version of the form, with the same
		// entitlements looked up a moment ago, would refuse the same way.
		if refused != nil && rec.ID == refused.ID && rec.Version == refused.Version {
			return SubmitOutcome{}, rejection(cmd, data, refusal, refused.RecipientVerified)
		}
		if cmd.IdempotencyKey != "" && !cmd.DryRun && !test { // a test's key only names it in the inbox
			prior, err := h.store.IdempotentResponse(ctx, rec.ID, cmd.IdempotencyKey)
			if err != nil {
				return SubmitOutcome{}, err
			}
			if prior != nil {
				return replay(cmd, key, data, prior)
			}
		}
		if in == nil || inForm != rec.ID {
			r, err := h.uploads.resolveKeys(ctx, rec.ID, cmd.Fields)
			if err != nil {
				return SubmitOutcome{}, err
			}
			in, inForm = &r, rec.ID
			if len(r.files) > 0 { // upload keys left the fields: split and judge what is left (most posts have none)
				env, data = submission.Split(r.fields)
				req.Fields, req.Envelope, req.Files = r.fields, env, files(append(slices.Clip(cmd.Files), r.files...))
			}
		}
		v, err := h.judge(ctx, req, rec, &captcha, fresh, test)
		if errors.Is(err, errStaleCaptcha) {
			fresh = true // the cached form names a captcha secret that was replaced: read it again
			continue
		}
		if err != nil {
			return SubmitOutcome{}, err
		}
		if v.Err() != nil && !fresh {
			fresh = true // a cached form may be stale: judge a rejection on fresh data, if it changed
			refused, refusal = &rec, v
			continue
		}
		if v.Err() != nil {
			return SubmitOutcome{}, rejection(cmd, data, v, rec.RecipientVerified)
		}
		// Scanning costs clamd a pass over every byte: only files every
		// gate accepted (the form takes uploads, the account may) go.
		if !scanned {
			scanned = true
			if bad := h.uploads.scanParts(ctx, cmd.Files); bad != nil {
				return SubmitOutcome{}, rejection(cmd, data, submission.UploadRefused(cmd.DryRun, *bad), rec.RecipientVerified)
			}
		}
		if cmd.DryRun {
			return SubmitOutcome{Response: dryRunResponse(cmd, data, v, rec.RecipientVerified)}, nil
		}
		if test {
			return h.acceptTest(ctx, cmd, rec, env, data, *in)
		}
		out, err := h.accept(ctx, cmd, key, rec, env, data, *in)
		if errors.Is(err, domain.ErrConcurrency) && attempt < maxStaleRetries {
			fresh = true // the form changed since it was read: judge again
			continue
		}
		var exhausted *QuotaExhaustedError
		if errors.As(err, &exhausted) { // every gate passed, but the commit found no room
			return SubmitOutcome{}, rejection(cmd, data, submission.OverQuota(exhausted.Usage), rec.RecipientVerified)
		}
		var taken *UploadUnavailableError
		if errors.As(err, &taken) { // another submission consumed an upload key between judging and commit
			return SubmitOutcome{}, rejection(cmd, data, submission.UploadUnavailable(cmd.DryRun, fieldOfKey(in.files, taken.Key)), rec.RecipientVerified)
		}
		return out, err
	}
}

// route finds the form a submission is for: by its access key, or by id
// for an owner's dry run.
func (h *SubmitHandler) route(ctx context.Context, cmd Submit, keyHash []byte, fresh bool) (FormRecord, error) {
	if cmd.FormID != "" {
		return h.forms.FormByID(ctx, cmd.FormID)
	}
	return h.forms.FormByAccessKey(ctx, keyHash, fresh)
}

// fieldOfKey names the field an upload key was sent in.
func fieldOfKey(files []UploadedFile, key string) string {
	for _, f := range files {
		if f.Key == key {
			return f.Field
		}
	}
	return "attachment"
}

// judge looks up the entitlements the domain may consult for this request
// (none for a plain browser post) and has the domain judge it. When the
// judgement reaches a captcha, the token is verified (once per request) and
// the domain judges again with the outcome.
func (h *SubmitHandler) judge(ctx context.Context, req submission.Request, rec FormRecord, captcha *captchaMemo, fresh, test bool) (submission.Verdict, error) {
	ent, err := heldEntitlements(ctx, h.ent, rec.AccountID, submission.FeaturesJudged(req, rec.Settings)...)
	if err != nil {
		return submission.Verdict{}, err
	}
	target := submission.Target{Settings: rec.Settings, RecipientVerified: rec.RecipientVerified}
	if req.DryRun || test { // a live submission's quota is taken by its commit; a dry run's or a test's is only read
		u, err := h.usage(ctx, rec.AccountID, h.clock.Now())
		if err != nil {
			return submission.Verdict{}, err
		}
		target.Usage = &u
	}
	v := submission.Judge(req, target, ent)
	if check, ok := v.CaptchaCheck(); ok {
		outcome, err := captcha.outcome(ctx, h.captchas, rec, check, req.RemoteIP, fresh)
		if err != nil {
			return submission.Verdict{}, err
		}
		req.Captcha = &outcome
		v = submission.Judge(req, target, ent)
	}
	return v, nil
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
