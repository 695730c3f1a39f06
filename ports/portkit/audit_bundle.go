package portkit

import (
	"net/http"
	"time"
)

// AuditBundleRetryAfter is how long to wait before asking again for an
// audit bundle no checkpoint covers yet (application.ErrNothingCheckpointed):
// the job that signs checkpoints runs once a minute.
const AuditBundleRetryAfter = time.Minute

// SetAuditBundleHeaders makes a form's audit bundle a download named after
// the form. The body must go out as the application wrote it: a verifier
// accepts only those exact bytes.
func SetAuditBundleHeaders(h http.Header, formID string) {
	h.Set("Content-Type", "application/json")
	h.Set("Content-Disposition", `attachment; filename="formd-audit-`+formID+`.json"`)
	h.Set("Cache-Control", "private, no-store")
	h.Set("X-Content-Type-Options", "nosniff")
}
