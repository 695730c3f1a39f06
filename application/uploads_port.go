package application

import (
	"context"
	"io"
	"time"
)

// UploadReservations keeps the reservations of advanced uploads in
// PostgreSQL, so every process sees the same keys, verdicts and uses. A
// reservation is consumed by the commit of the submission that uses it
// (AcceptedSubmission.Uploads), never here.
type UploadReservations interface {
	// Reserve stores a new reservation.
	Reserve(ctx context.Context, r UploadReservation) error
	// Reservation finds one by key; domain.ErrNotFound when there is none
	// (never reserved, or cleaned up).
	Reservation(ctx context.Context, key string) (UploadReservation, error)
	// RecordUpload notes that the object arrived through formd (the built-in
	// store), unless the reservation expired or was consumed meanwhile:
	// domain.ErrNotFound then.
	RecordUpload(ctx context.Context, key string, size int64, at time.Time) error
	// RecordScan keeps the scanner's verdict and what the content was
	// sniffed as.
	RecordScan(ctx context.Context, key string, s ObjectScan) error
	// DueForCleanup lists up to limit keys whose object and reservation may
	// go: reservations never consumed that expired, and consumed ones whose
	// links expired and whose submission's payload was shredded.
	DueForCleanup(ctx context.Context, now time.Time, limit int) ([]string, error)
	// Forget removes the reservation of a key whose object was deleted.
	Forget(ctx context.Context, key string) error
}

// UploadReservation is a single-use upload key reserved for one file of
// one form (GET /upload), and what became of it.
type UploadReservation struct {
	Key    string
	FormID string
	// Name, DeclaredType and Size are what the client said when reserving.
	Name         string
	DeclaredType string
	Size         int64
	ReservedAt   time.Time
	// ExpiresAt ends the upload and its use by a submission.
	ExpiresAt time.Time
	// UploadedAt is when the object arrived through formd; zero for a
	// bucket's upload, which formd does not see.
	UploadedAt time.Time
	// Scan is ScanPending, ScanStateClean or ScanStateInfected; Signature names
	// what an infected object matched.
	Scan      string
	Signature string
	// Detected is what the content was sniffed as when it was scanned, and
	// StoredSize how large the stored object was.
	Detected   []string
	StoredSize int64
	// ConsumedBy is the submission that used the key; empty while unused.
	ConsumedBy string
	// LinksExpire is when the download links of a consumed object expire.
	LinksExpire time.Time
}

// ObjectScan is the outcome of scanning a stored object.
type ObjectScan struct {
	Verdict  ScanVerdict
	Detected []string
	Size     int64
	At       time.Time
}

// Scan states of an upload reservation.
const (
	ScanPending       = ""
	ScanStateClean    = "clean"
	ScanStateInfected = "infected"
)

// MalwareScanner scans an uploaded object's bytes (ClamAV's clamd). The
// name is the object's name, for the scanner's log only; the bytes never
// appear in an error. An error means the object could not be scanned (no
// scanner, a timeout, a size limit): the caller fails closed and treats the
// object as not clean.
type MalwareScanner interface {
	Scan(ctx context.Context, name string, r io.Reader) (ScanVerdict, error)
}

// ScanVerdict is a malware scanner's verdict on one object: clean, or
// infected with the named signature. Only a completed scan has a verdict.
type ScanVerdict struct {
	Infected bool
	// Signature names what was found (such as Eicar-Test-Signature); empty
	// when the object is clean.
	Signature string
}

// ScanClean is the verdict on an object in which nothing was found.
var ScanClean = ScanVerdict{}

// ScanInfected is the verdict on an object that matched the signature.
func ScanInfected(signature string) ScanVerdict {
	return ScanVerdict{Infected: true, Signature: signature}
}

// ObjectStore keeps the objects of advanced uploads (GET /upload): an
// S3-compatible bucket in production, or formd's built-in store in
// PostgreSQL. Keys are the upload keys formd made; an object's bytes never
// appear in an error.
type ObjectStore interface {
	// Put stores the object under key: exactly size bytes of r, or an error.
	// It never replaces an object (ErrObjectExists): the bytes a scan
	// passed are the bytes a submission consumes and recipients download.
	Put(ctx context.Context, key string, r io.Reader, size int64, contentType string) error
	// Open reads the object and says how large it is; domain.ErrNotFound
	// when nothing was uploaded under key.
	Open(ctx context.Context, key string) (io.ReadCloser, int64, error)
	// Delete removes the object; one that is not there is not an error.
	Delete(ctx context.Context, key string) error
}

// ObjectLinks makes the signed, expiring URLs clients upload objects to and
// recipients download them from: presigned URLs of the bucket, or URLs of
// formd's own object routes for the built-in store.
type ObjectLinks interface {
	// UploadTarget is how a client uploads one object straight to storage.
	UploadTarget(ctx context.Context, u ObjectUpload) (UploadTarget, error)
	// DownloadURL is a link that serves the object as an attachment named
	// d.Name until d.Expires.
	DownloadURL(ctx context.Context, d ObjectDownload) (string, error)
	// Verify reports whether a request to formd's own object routes was
	// signed for op on key until expires. Links that point elsewhere (a
	// bucket's) never verify here.
	Verify(op ObjectOp, key string, expires time.Time, signature string) bool
}

// ObjectOp is what a signed object URL allows.
type ObjectOp string

// The operations of formd's own object routes.
const (
	ObjectPut ObjectOp = "put"
	ObjectGet ObjectOp = "get"
)

// ObjectUpload is what an upload URL is signed for.
type ObjectUpload struct {
	Key         string
	ContentType string
	Size        int64
	Expires     time.Time
}

// UploadTarget is how a client uploads an object: the method, URL and
// headers of one request.
type UploadTarget struct {
	Method  string
	URL     string
	Headers map[string]string
}

// ObjectDownload is what a download link is signed for. Every link serves
// its object as DownloadContentType, named Name (AttachmentDisposition).
type ObjectDownload struct {
	Key     string
	Name    string
	Expires time.Time
}

// ContentSniffer says what a file is from its first bytes (its signature),
// whatever its name or declared type claim.
type ContentSniffer interface {
	// Sniff is the type head is detected as, then every type that one is
	// a kind of, lower-case; head is at most SniffBytes long.
	Sniff(head []byte) []string
	// Canonical is a declared media type without parameters, lower-case,
	// under its canonical name when it is known by an alias; "" when it
	// cannot be parsed.
	Canonical(declared string) string
}

// SniffBytes is how much of a file's beginning a ContentSniffer reads.
const SniffBytes = 3072
