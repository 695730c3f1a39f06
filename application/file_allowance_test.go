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
