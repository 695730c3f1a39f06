package application

import (
	"context"
	"errors"
	"slices"

	"github.com/formd/formd/domain/submission"
)

// submitting is one submission on its way through Handle: what it carries
// and what earlier attempts at it found.
type submitting struct {
	cmd     Submit
	key     string // the access key, the path's winning over the body's
	keyHash []byte
	// facts are what the domain decides from; their request's fields are
	// the post's once its upload keys became files.
	facts submission.Facts
	data  []submission.Field // the custom fields, echoed and delivered
	// fresh reads the form past the cache: a refusal or a lost race is
	// judged again on the form as committed.
	fresh bool
	// refusedBy is the cached form a first decision refused, and refusal
	// that decision.
	refusedBy *FormRecord
	refusal   submission.Decision
	captcha   captchaMemo
	spam      spamMemo
	// in is the post once its upload keys became files, for the form inForm.
	in      *resolved
	inForm  string
	scanned bool // the multipart parts went to the malware scanner
	// formID is the form the submission was routed to; blank until then.
	formID string
}

func newSubmitting(cmd Submit) *submitting {
	env, data := submission.Split(cmd.Fields)
	key := env.AccessKey
	if cmd.PathAccessKey != "" {
		key = cmd.PathAccessKey
	}
	req := submission.Request{Fields: cmd.Fields, Envelope: env, Origin: cmd.Origin, Referer: cmd.Referer, RemoteIP: cmd.RemoteIP,
		Files: files(cmd.Files), JSONClient: cmd.JSONClient, DryRun: cmd.DryRun, NamesForm: key != "" || cmd.FormID != ""}
	return &submitting{cmd: cmd, key: key, keyHash: HashSecret(key), facts: submission.Facts{Request: req}, data: data}
}

// refusedAgain refuses the submission as the cached form's first decision
// did when the form read afresh is the same version: judging is not free
// (a form's regex rules may spend the whole matching budget), and the same
// form, with the same entitlements looked up a moment ago, would refuse the
// same way.
func (s *submitting) refusedAgain(rec FormRecord) error {
	if s.refusedBy == nil || rec.ID != s.refusedBy.ID || rec.Version != s.refusedBy.Version {
		return nil
	}
	return s.refuse(s.refusal, s.refusedBy.RecipientVerified)
}

// refuse is the error of a decision that refused the submission.
func (s *submitting) refuse(d submission.Decision, recipientVerified bool) error {
	return s.rejection(d.Verdict(), recipientVerified)
}

func (s *submitting) rejection(v submission.Verdict, recipientVerified bool) error {
	return rejection(s.cmd, s.data, v, recipientVerified)
}

// refusedAtCommit is the refusal of a submission every gate accepted but
// its commit could not take: the monthly quota was used up, or another
// submission consumed one of its upload keys since it was judged. Other
// errors pass as they are.
func (s *submitting) refusedAtCommit(err error, rec FormRecord) error {
	var exhausted *QuotaExhaustedError
	var taken *UploadUnavailableError
	switch {
	case errors.As(err, &exhausted):
		return s.rejection(submission.OverQuota(exhausted.Usage), rec.RecipientVerified)
	case errors.As(err, &taken):
		return s.rejection(submission.UploadUnavailable(s.cmd.DryRun, fieldOfKey(s.in.files, taken.Key)), rec.RecipientVerified)
	}
	return err
}

// resolveUploads turns the post's upload keys into files for the form
// formID, once per form; the fields that are left are split and judged.
func (h *SubmitHandler) resolveUploads(ctx context.Context, s *submitting, formID string) error {
	if s.in != nil && s.inForm == formID {
		return nil
	}
	r, err := h.uploads.resolveKeys(ctx, formID, s.cmd.Fields)
	if err != nil {
		return err
	}
	s.in, s.inForm = &r, formID
	if len(r.files) > 0 { // most posts have none
		req := &s.facts.Request
		req.Envelope, s.data = submission.Split(r.fields)
		req.Fields, req.Files = r.fields, files(append(slices.Clip(s.cmd.Files), r.files...))
	}
	return nil
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
