package application

import (
	"context"
	"errors"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/submission"
)

// FileAllowance asks, while a multipart post is still arriving, how much
// file content its form may take, so that a post to an unknown key or to a
// form without uploads costs no memory for its files.
type FileAllowance struct {
	AccessKey string
}

// AllowedFiles answers FileAllowance. The zero value takes no files.
type AllowedFiles struct {
	// FormFound is false when no form has the access key: nothing the post
	// carries can change its answer.
	FormFound bool
	// MaxFiles and MaxFileBytes are the form's effective limits; zero when
	// the form takes no files.
	MaxFiles     int
	MaxFileBytes int64
}

// FileAllowanceHandler answers FileAllowance from the form cache, and from
// the database before it refuses; the submission is judged again on its
// full body, and a file whose content was not kept is refused then
// (submission.File.Unread).
type FileAllowanceHandler struct {
	forms SubmissionForms
	ent   Entitlements
}

// NewFileAllowanceHandler builds the handler; every dependency is required.
func NewFileAllowanceHandler(forms SubmissionForms, ent Entitlements) *FileAllowanceHandler {
	if forms == nil || ent == nil {
		panic("application: nil dependency of FileAllowanceHandler")
	}
	return &FileAllowanceHandler{forms: forms, ent: ent}
}

// Handle looks the form up and applies the domain's rule of whether it takes
// files.
func (h *FileAllowanceHandler) Handle(ctx context.Context, q FileAllowance) (AllowedFiles, error) {
	if q.AccessKey == "" {
		return AllowedFiles{}, nil
	}
	a, err := h.allowance(ctx, q.AccessKey, false)
	if err != nil || a.MaxFiles > 0 {
		return a, err
	}
	// A cached form may predate its uploads being turned on, and content
	// not kept now cannot be had later: ask the database before saying no.
	return h.allowance(ctx, q.AccessKey, true)
}

func (h *FileAllowanceHandler) allowance(ctx context.Context, accessKey string, fresh bool) (AllowedFiles, error) {
	rec, err := h.forms.FormByAccessKey(ctx, HashSecret(accessKey), fresh)
	if errors.Is(err, domain.ErrNotFound) {
		return AllowedFiles{}, nil
	}
	if err != nil {
		return AllowedFiles{}, err
	}
	var features []string
	if rec.Settings.UploadsEnabled { // else the answer is no, whatever the account holds
		features = append(features, account.FeatureUploads)
	}
	ent, err := heldEntitlements(ctx, h.ent, rec.AccountID, features...)
	if err != nil {
		return AllowedFiles{}, err
	}
	if submission.UploadsRefusal(rec.Settings, ent) != "" {
		return AllowedFiles{FormFound: true}, nil
	}
	l := rec.Settings.UploadLimits.Effective()
	return AllowedFiles{FormFound: true, MaxFiles: l.MaxFiles, MaxFileBytes: l.MaxFileBytes}, nil
}
