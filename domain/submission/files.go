package submission

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/form"
)

// File is what the gates know of one submitted file: its metadata and the
// type its content was sniffed as, never the content itself. Both upload
// paths (multipart parts, and later reserved uploads) judge files as this.
type File struct {
	// Field is the form field the file was sent under.
	Field string
	// Name is the file name the client gave.
	Name string
	// DeclaredType is the type the client declared, lower-case and without
	// parameters; empty when none was.
	DeclaredType string
	Size         int64
	// Detected is the type the content was sniffed as, then the types that
	// one is a kind of (parents and aliases), lower-case. Empty means
	// nothing could be said ("application/octet-stream").
	Detected []string
	// Key is the upload key of a file uploaded in advance (GET /upload)
	// and named in a field; empty for a multipart part. KeyState says
	// whether the key can be used, and for a multipart part what the
	// malware scan found (KeyInfected, KeyUnscanned).
	Key      string
	KeyState KeyState
	// Unread marks a multipart file whose content was counted but not kept,
	// because the form took no files when the part arrived; such a file can
	// never be accepted (its content is gone).
	Unread bool
}

// KeyState says whether an upload key named in a submission can be used:
// reserved for this form, uploaded, scanned clean, unused and unexpired.
type KeyState int

// The states of an upload key, as the application found it.
const (
	KeyUsable KeyState = iota
	// KeyUnknown: never reserved, reserved for another form, or cleaned up
	// (one message for all, so a key says nothing about other forms).
	KeyUnknown
	KeyUsed
	KeyExpired
	KeyNotUploaded
	KeyInfected
	// KeyUnscanned: the scanner could not give a verdict (fails closed).
	KeyUnscanned
	// KeyWrongSize: the stored object is not the size that was reserved.
	KeyWrongSize
)

// uploadKeyPrefix starts every upload key: upl_ and 32 lower-case hex digits.
const uploadKeyPrefix = "upl_"

// IsUploadKey reports whether a field value is an upload key, which names a
// file uploaded in advance rather than being forwarded as a value.
func IsUploadKey(v string) bool {
	if len(v) != len(uploadKeyPrefix)+32 || !strings.HasPrefix(v, uploadKeyPrefix) {
		return false
	}
	for _, c := range v[len(uploadKeyPrefix):] {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// NewUploadKey makes an upload key from 128 random bits in hex.
func NewUploadKey(randomHex string) string { return uploadKeyPrefix + randomHex }

// keyProblem is the refusal of a file whose upload key cannot be used.
func keyProblem(f File) string {
	field := fmt.Sprintf("%q", f.Field)
	switch f.KeyState {
	case KeyUsable:
		return ""
	case KeyUsed:
		return fmt.Sprintf("The upload key in field %s was already used by another submission; upload the file again.", field)
	case KeyExpired:
		return fmt.Sprintf("The upload key in field %s has expired; upload the file again.", field)
	case KeyNotUploaded:
		return fmt.Sprintf("The upload key in field %s names no uploaded file yet; upload the file to the URL GET /upload gave, then submit.", field)
	case KeyInfected:
		return fmt.Sprintf("The file uploaded for field %s is refused: the malware scanner found it infected.", field)
	case KeyUnscanned:
		return fmt.Sprintf("The file uploaded for field %s could not be scanned for malware right now; try again in a moment.", field)
	case KeyWrongSize:
		return fmt.Sprintf("The file uploaded for field %s is not the size that was reserved; upload it again.", field)
	default:
		return fmt.Sprintf("The upload key in field %s is not valid for this form.", field)
	}
}

// UploadUnavailable is the verdict on a submission whose upload key another
// submission consumed first, or which expired, between judging and commit.
func UploadUnavailable(dryRun bool, field string) Verdict {
	return UploadRefused(dryRun, File{Field: field, KeyState: KeyUsed})
}

// UploadRefused is the uploads gate's verdict on a submission one of whose
// files became unusable after the gates passed: a key taken meanwhile, or a
// multipart part the malware scanner found infected or could not scan.
func UploadRefused(dryRun bool, f File) Verdict {
	r := GateResult{Gate: GateUploads, Outcome: OutcomeFailed, Message: keyProblem(f)}
	return Verdict{dryRun: dryRun, gates: []GateResult{r}, failed: &r}
}

// Generic sniffed types say only "some bytes" or "some text": they neither
// confirm nor contradict a declared type.
const (
	typeOctetStream = "application/octet-stream"
	typeText        = "text/plain"
)

// Type is the type a file is checked against allowlists and mailed as: its
// sniffed type, or the declared one when sniffing found only bytes or text
// (a CSV or Markdown file has no signature). JudgeFile refuses a file
// unless both are types formd accepts (safeTypes).
func (f File) Type() string {
	detected := f.detected()
	if isGeneric(detected) && f.DeclaredType != "" && f.DeclaredType != typeOctetStream {
		return f.DeclaredType
	}
	return detected
}

func (f File) detected() string {
	if len(f.Detected) == 0 || f.Detected[0] == "" {
		return typeOctetStream
	}
	return f.Detected[0]
}

func isGeneric(t string) bool { return t == typeOctetStream || t == typeText }

// BlockedExtensions are the executable and script-like file extensions no
// form accepts, whatever its allowlist: programs, installers, scripts,
// style sheets and documents browsers run scripts in (HTML, SVG). The
// content and declared type are judged by an allowlist besides (safeTypes).
var BlockedExtensions = []string{
	"exe", "bat", "cmd", "com", "scr", "msi", "msp", "msc", "dll", "cpl", "pif", "lnk", "reg", "inf", "scf", "hta", "gadget",
	"application", "appx", "msix", "vb", "vbs", "vbe", "js", "jse", "mjs", "cjs", "wsf", "wsh", "ws", "ps1", "psm1", "psd1", "ps1xml",
	"sh", "bash", "zsh", "csh", "ksh", "command", "jar", "class", "apk", "app", "dmg", "pkg", "deb", "rpm", "run", "bin", "elf",
	"html", "htm", "xhtml", "shtml", "mht", "mhtml", "svg", "svgz", "xml", "xsl", "php", "phtml", "phar", "py", "pyc", "pl", "rb",
	"cgi", "asp", "aspx", "jsp", "swf", "iso", "img", "vhd", "vhdx", "css", "xslt", "wasm",
}

// signedTypes are types whose content always starts with a signature the
// sniffer knows: declaring one (by type or by extension) for content it does
// not recognise as one is a contradiction.
var signedTypes = map[string]bool{
	"application/pdf": true, "image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true, "image/bmp": true,
	"image/tiff": true, "image/heic": true, "image/avif": true, "application/zip": true, "application/gzip": true,
	"application/x-7z-compressed": true, "application/vnd.rar": true, "application/x-rar-compressed": true,
	"audio/mpeg": true, "video/mp4": true, "audio/ogg": true, "audio/wav": true, "audio/x-wav": true,
	"application/vnd.openxmlformats-officedocument.wordprocessingml.document":   true,
	"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet":         true,
	"application/vnd.openxmlformats-officedocument.presentationml.presentation": true,
	"application/msword": true, "application/vnd.ms-excel": true, "application/vnd.oasis.opendocument.text": true,
}

// extensionTypes are the signed types well-known extensions promise.
var extensionTypes = map[string]string{
	"pdf": "application/pdf", "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "jpe": "image/jpeg",
	"gif": "image/gif", "webp": "image/webp", "bmp": "image/bmp", "tif": "image/tiff", "tiff": "image/tiff",
	"zip": "application/zip", "gz": "application/gzip", "7z": "application/x-7z-compressed", "rar": "application/x-rar-compressed",
	"docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
	"xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
	"pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
	"mp3":  "audio/mpeg", "mp4": "video/mp4",
}

// Extension is a file name's last extension, lower-case, with the trailing
// dots and spaces Windows ignores removed ("a.EXE. " is "exe").
func Extension(name string) string {
	name = strings.TrimRight(name, ". ")
	if i := strings.LastIndexAny(name, "./\\"); i >= 0 && name[i] == '.' {
		return strings.ToLower(name[i+1:])
	}
	return ""
}

func isBlockedExtension(ext string) bool {
	for _, b := range BlockedExtensions {
		if ext == b {
			return true
		}
	}
	return false
}

// JudgeFiles checks the files of one submission against the form's limits
// and the server-wide rules: count, total size, then each file (JudgeFile).
// It returns the refusal message, or "" when every file passes.
func JudgeFiles(files []File, limits form.UploadLimits) string {
	l := limits.Effective()
	if len(files) > l.MaxFiles {
		return fmt.Sprintf("Too many files: this form accepts at most %d per submission, %d were sent.", l.MaxFiles, len(files))
	}
	var total int64
	for _, f := range files {
		total += f.Size
	}
	if total > form.MaxTotalFileBytes {
		return fmt.Sprintf("The files are too large together: at most %s per submission.", bytesText(form.MaxTotalFileBytes))
	}
	for _, f := range files {
		if msg := keyProblem(f); msg != "" {
			return msg
		}
		if msg := JudgeFile(f, l); msg != "" {
			return msg
		}
		if f.Unread {
			return fmt.Sprintf("File %s could not be received: the form took no files when it arrived. Send it again.", displayName(f.Name))
		}
	}
	return ""
}

// JudgeFile checks one file's metadata: its size, its extension, whether its
// content and declared type are types formd accepts (safeTypes), whether
// its content contradicts its declared type or extension (the signature
// check), and the form's MIME allowlist. It returns the refusal message, or
// "" when the file passes.
func JudgeFile(f File, limits form.UploadLimits) string {
	l := limits.Effective()
	name := displayName(f.Name)
	if f.Size > l.MaxFileBytes {
		return fmt.Sprintf("File %s is too large: this form accepts files of at most %s.", name, bytesText(l.MaxFileBytes))
	}
	ext := Extension(f.Name)
	if isBlockedExtension(ext) {
		return fmt.Sprintf("File %s is refused: executable and script-like files (.%s) are not accepted.", name, ext)
	}
	if msg := typeProblem(f, name); msg != "" {
		return msg
	}
	if contradicts(f, ext) {
		return fmt.Sprintf("File %s is refused: its content (%s) does not match its declared type or extension.", name, f.detected())
	}
	if len(l.AllowedMimeTypes) > 0 && !rulesMimeAllowed(f.Type(), l.AllowedMimeTypes) {
		return fmt.Sprintf("File %s is of type %s, which this form does not accept (allowed: %s).", name, f.Type(), strings.Join(l.AllowedMimeTypes, ", "))
	}
	return ""
}

func (f File) detectedAs(t string) bool {
	for _, d := range f.Detected {
		if d == t {
			return true
		}
	}
	return false
}

// contradicts is the signature check: a specific sniffed type must be the
// declared one (or a kind of it), and a declared or extension-implied signed
// type must be what was sniffed.
func contradicts(f File, ext string) bool {
	detected := f.detected()
	declared := f.DeclaredType
	if declared != "" && declared != typeOctetStream {
		if isGeneric(detected) {
			if signedTypes[declared] {
				return true
			}
		} else if !f.detectedAs(declared) && !zipContainer(declared, f) {
			return true
		}
	}
	if want, ok := extensionTypes[ext]; ok && !f.detectedAs(want) && !zipContainer(want, f) {
		return true
	}
	return false
}

// zipContainer tolerates a zip-based document (docx, xlsx, …) the sniffer
// saw only as a zip archive.
func zipContainer(declared string, f File) bool {
	return f.detected() == "application/zip" && (strings.HasSuffix(declared, "+zip") ||
		strings.HasPrefix(declared, "application/vnd.openxmlformats-officedocument.") ||
		strings.HasPrefix(declared, "application/vnd.oasis.opendocument."))
}

// displayName quotes a client's file name for a message, bounded and with
// control characters escaped.
func displayName(name string) string {
	if utf8.RuneCountInString(name) > 100 {
		name = string([]rune(name)[:100]) + "…"
	}
	return fmt.Sprintf("%q", name)
}

func bytesText(n int64) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	if n%(1<<10) == 0 {
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// FileTypes maps each field to the types of the files sent under it, as
// CheckFiles reads them.
func FileTypes(files []File) map[string][]string {
	out := make(map[string][]string, len(files))
	for _, f := range files {
		out[f.Field] = append(out[f.Field], f.Type())
	}
	return out
}

// UploadsRefusal says why a form takes no files at all (its uploads are off,
// or its account may not take them), or "" when it takes them within its
// limits. Every path that receives files asks this first.
func UploadsRefusal(st form.Settings, ent account.Entitlements) string {
	switch {
	case !st.UploadsEnabled:
		return MsgUploadsDisabled
	case !ent.Has(account.FeatureUploads):
		return MsgUploadsNotEntitled
	}
	return ""
}

// Reservation is a request to upload one file in advance (GET /upload):
// what the client says of the file, and where the request comes from.
type Reservation struct {
	Name         string
	DeclaredType string
	Size         int64
	Origin       string
	Referer      string
	RemoteIP     string
}

// JudgeReservation checks a reservation as a submission's file is checked,
// before any byte exists: the form takes uploads and the account may, the
// request comes from where a submission may (judgeSource), and the file passes the form's limits
// judged by what the client declared (the content is sniffed and judged
// again when a submission uses it). It returns the refusal message, or "".
func JudgeReservation(r Reservation, st form.Settings, ent account.Entitlements) string {
	if msg := UploadsRefusal(st, ent); msg != "" {
		return msg
	}
	if _, _, failure := judgeSource(r.Origin, r.Referer, r.RemoteIP, st, ent); failure != "" {
		return failure
	}
	declared := r.DeclaredType
	if declared == "" {
		declared = typeOctetStream
	}
	if msg := declaredTypeProblem(declared, displayName(r.Name)); msg != "" {
		return msg
	}
	return JudgeFile(File{Name: r.Name, DeclaredType: declared, Size: r.Size, Detected: []string{declared}}, st.UploadLimits)
}
