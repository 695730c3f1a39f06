package form

import (
	"time"

	"github.com/formd/formd/domain"
)

// MaxArchiveRetentionDays is the longest any plan may keep archived
// submissions.
const MaxArchiveRetentionDays = 365

// Archive is the opt-in submissions archive: while enabled, the sealed
// payload of each submission accepted after that is kept past its final
// delivery for RetentionDays, then shredded. Off, as the spec requires by
// default, a payload is shredded once every delivery is final.
type Archive struct {
	Enabled       bool `json:"enabled"`
	RetentionDays int  `json:"retentionDays,omitempty"`
}

// KeepUntil is when the payload of a submission accepted at acceptedAt may be
// shredded at the latest; zero when the archive is off.
func (a Archive) KeepUntil(acceptedAt time.Time) time.Time {
	if !a.Enabled {
		return time.Time{}
	}
	return acceptedAt.AddDate(0, 0, a.RetentionDays)
}

// validate checks the archive against the longest retention the account's
// plan allows (Policy.MaxArchiveRetentionDays).
func (a Archive) validate(p Policy) error {
	if !a.Enabled {
		if a.RetentionDays != 0 {
			return domain.Invalid("archive.retentionDays", "archive.retentionDays is set only while archive.enabled is true")
		}
		return nil
	}
	limit := min(p.MaxArchiveRetentionDays, MaxArchiveRetentionDays)
	if limit < 1 {
		return domain.Invalid("archive.enabled", "the submissions archive is not part of this account's plan")
	}
	if a.RetentionDays < 1 || a.RetentionDays > limit {
		return domain.Invalid("archive.retentionDays", "archive.retentionDays must be between 1 and %d on this account's plan", limit)
	}
	return nil
}
