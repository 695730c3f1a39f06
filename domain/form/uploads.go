package form

import (
	"strconv"

	"github.com/formd/formd/domain"
)

// Server-wide upload ceilings and the defaults of a form that sets no limits.
// The spec leaves the numbers open; these keep one submission's sealed
// payload (files included) a few tens of MiB, which PostgreSQL stores
// out of line (TOAST) without trouble.
const (
	// DefaultMaxFiles is a form's file count limit when it sets none.
	DefaultMaxFiles = 5
	// DefaultMaxFileBytes is a form's file size limit when it sets none.
	DefaultMaxFileBytes = 5 << 20
	// MaxFilesCeiling is the most files any form may accept per submission.
	MaxFilesCeiling = 10
	// MaxFileBytesCeiling is the largest file any form may accept.
	MaxFileBytesCeiling = 10 << 20
	// MaxTotalFileBytes bounds the files of one submission together.
	MaxTotalFileBytes = 25 << 20
	// maxUploadMimeTypes bounds a form's MIME allowlist.
	maxUploadMimeTypes = 50
)

// UploadLimits are a form's file limits (the spec's Limits: uploads). A zero
// count or size means the default; an empty allowlist allows every type the
// server-wide checks (blocked extensions, signature) accept.
type UploadLimits struct {
	MaxFiles         int      `json:"maxFiles"`
	MaxFileBytes     int64    `json:"maxFileBytes"`
	AllowedMimeTypes []string `json:"allowedMimeTypes"`
}

// Effective fills the defaults of what the form left unset.
func (l UploadLimits) Effective() UploadLimits {
	if l.MaxFiles == 0 {
		l.MaxFiles = DefaultMaxFiles
	}
	if l.MaxFileBytes == 0 {
		l.MaxFileBytes = DefaultMaxFileBytes
	}
	if l.AllowedMimeTypes == nil {
		l.AllowedMimeTypes = []string{}
	}
	return l
}

func (l UploadLimits) validate() error {
	if l.MaxFiles < 0 || l.MaxFiles > MaxFilesCeiling {
		return domain.Invalid("uploadLimits.maxFiles", "uploadLimits.maxFiles must be between 1 and %d", MaxFilesCeiling)
	}
	if l.MaxFileBytes < 0 || l.MaxFileBytes > MaxFileBytesCeiling {
		return domain.Invalid("uploadLimits.maxFileBytes", "uploadLimits.maxFileBytes must be between 1 and %d (10 MiB)", MaxFileBytesCeiling)
	}
	if len(l.AllowedMimeTypes) > maxUploadMimeTypes {
		return domain.Invalid("uploadLimits.allowedMimeTypes", "uploadLimits.allowedMimeTypes may list at most %d types", maxUploadMimeTypes)
	}
	for i, m := range l.AllowedMimeTypes {
		if !rulesIsMimePattern(m) {
			return domain.Invalid("uploadLimits.allowedMimeTypes["+strconv.Itoa(i)+"]",
				"%q is not a MIME type pattern like \"image/png\" or \"image/*\" (lowercase letters, digits and .+- only)", m)
		}
	}
	return nil
}
