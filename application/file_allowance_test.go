package application

import (
	"context"
	"testing"

	"github.com/formd/formd/domain/form"
)

// The submit port keeps a multipart post's file content only as far as
// FileAllowance allows: nothing for no form, a form with uploads off or an
// account without the entitlement, the form's own limits otherwise.
func TestFileAllowanceFollowsTheForm(t *testing.T) {
	limited := uploadForm()
	limited.Settings.UploadLimits = form.UploadLimits{MaxFiles: 2, MaxFileBytes: 1 << 20}
	disabled := uploadForm()
	disabled.Settings.UploadsEnabled = false
	for _, tt := range []struct {
		name string
		key  string
		rec  FormRecord
		ent  Entitlements
		want AllowedFiles
	}{
		{"no key", "", limited, uploadsEntitled{}, AllowedFiles{}},
		{"an unknown key", "other", limited, uploadsEntitled{}, AllowedFiles{}},
		{"uploads off", "key", disabled, uploadsEntitled{}, AllowedFiles{FormFound: true}},
		{"no entitlement", "key", limited, noEntitlements{}, AllowedFiles{FormFound: true}},
		{"the form's limits", "key", limited, uploadsEntitled{}, AllowedFiles{FormFound: true, MaxFiles: 2, MaxFileBytes: 1 << 20}},
		{"the defaults", "key", uploadForm(), uploadsEntitled{}, AllowedFiles{FormFound: true, MaxFiles: form.DefaultMaxFiles, MaxFileBytes: form.DefaultMaxFileBytes}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := NewFileAllowanceHandler(formsByKey{key: "key", rec: tt.rec}, tt.ent)
			got, err := h.Handle(context.Background(), FileAllowance{AccessKey: tt.key})
			if err != nil || got != tt.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

// staleForms answers from a cache that predates the form's uploads being
// turned on, and fresh from the database.
type staleForms struct{ cached, current FormRecord }

func (s staleForms) FormByAccessKey(_ context.Context, _ []byte, fresh bool) (FormRecord, error) {
	if fresh {
		return s.current, nil
	}
	return s.cached, nil
}

func (s staleForms) FormByID(context.Context, string) (FormRecord, error) { return s.current, nil }

// Content not kept cannot be had later, so a cached "no files" is checked
// against the database before the port discards a post's files.
func TestFileAllowanceAsksTheDatabaseBeforeSayingNo(t *testing.T) {
	before := uploadForm()
	before.Settings.UploadsEnabled = false
	h := NewFileAllowanceHandler(staleForms{cached: before, current: uploadForm()}, uploadsEntitled{})
	got, err := h.Handle(context.Background(), FileAllowance{AccessKey: "key"})
	if err != nil || got.MaxFiles == 0 {
		t.Fatalf("got %+v, %v; want the form's current limits", got, err)
	}
}
