package postgres

import "time"

// SetOutcomeBound sets how long s asks whether an interrupted commit
// landed, so a test of a database that stays away ends soon.
func SetOutcomeBound(s *SubmissionStore, bound time.Duration) { s.outcomeBound = bound }
