package submission

import "fmt"

// safeTypes are the only types formd accepts files as, on both upload paths:
// documents, images, sound, video, archives and plain data, which browsers
// and mail clients show or save but never run. Anything else is refused
// whatever its name: programs, scripts (JavaScript under any of its names,
// shell, PHP, Python, …), web pages (HTML, XHTML), style sheets, SVG and
// other XML (which browsers run scripts in), Flash, WebAssembly. An
// allowlist, so a type nobody thought of is refused rather than served.
//
// A file is judged by what its content is sniffed as; a declared type is
// taken only where sniffing found just bytes or text, and then it must be
// one of these too. Unrecognised binary content is application/octet-stream,
// the type every browser saves rather than runs.
var safeTypes = map[string]bool{
	typeOctetStream: true,
	// Text and data.
	typeText: true, "text/csv": true, "text/tab-separated-values": true, "text/markdown": true, "text/x-markdown": true,
	"text/calendar": true, "text/vcard": true, "text/x-vcard": true, "text/vtt": true, "application/x-subrip": true, "text/x-log": true,
	"application/yaml": true, "application/x-yaml": true, "text/yaml": true, "text/x-yaml": true,
	"application/json": true, "application/x-ndjson": true, "application/geo+json": true,
	// Documents.
	"application/pdf": true, "text/rtf": true, "application/epub+zip": true, "application/x-ole-storage": true,
	"application/msword": true, "application/vnd.ms-excel": true, "application/vnd.ms-powerpoint": true,
	"application/vnd.ms-outlook": true, "application/vnd.ms-publisher": true, "application/onenote": true,
	"application/vnd.openxmlformats-officedocument.wordprocessingml.document":   true,
	"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet":         true,
	"application/vnd.openxmlformats-officedocument.presentationml.presentation": true,
	"application/vnd.oasis.opendocument.text":                                   true, "application/vnd.oasis.opendocument.spreadsheet": true,
	"application/vnd.oasis.opendocument.presentation": true, "application/vnd.oasis.opendocument.graphics": true,
	"application/vnd.oasis.opendocument.chart": true, "application/vnd.oasis.opendocument.formula": true,
	"application/vnd.oasis.opendocument.text-template": true, "application/vnd.oasis.opendocument.spreadsheet-template": true,
	"application/vnd.oasis.opendocument.presentation-template": true, "application/vnd.oasis.opendocument.graphics-template": true,
	// Raster images.
	"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true, "image/bmp": true, "image/tiff": true,
	"image/heic": true, "image/heif": true, "image/avif": true, "image/jxl": true, "image/jp2": true, "image/x-icon": true,
	"image/vnd.mozilla.apng": true, "image/vnd.adobe.photoshop": true,
	// Sound and video.
	"audio/mpeg": true, "audio/mp4": true, "audio/x-m4a": true, "audio/aac": true, "audio/ogg": true, "audio/wav": true,
	"audio/flac": true, "audio/aiff": true, "audio/amr": true, "audio/midi": true, "audio/webm": true,
	"video/mp4": true, "video/webm": true, "video/quicktime": true, "video/mpeg": true, "video/ogg": true, "video/x-m4v": true,
	"video/x-matroska": true, "video/x-msvideo": true, "video/3gpp": true, "video/3gpp2": true, "application/ogg": true,
	// Archives: their members reach the recipient only when unpacked,
	// and clamd (when configured) scans inside them.
	"application/zip": true, "application/gzip": true, "application/x-7z-compressed": true, "application/x-rar-compressed": true,
	"application/x-tar": true, "application/x-bzip2": true, "application/x-xz": true, "application/zstd": true,
}

// DeliveredType is the type a file is attached to a mail as: its judged
// type, or application/octet-stream for one formd does not accept (a
// payload queued before its type was refused), never a type a mail client
// or browser would run.
func DeliveredType(t string) string {
	if safeTypes[t] {
		return t
	}
	return typeOctetStream
}

// refusedTypes ends every refusal of a file by its type: what is refused,
// whatever the name says.
const refusedTypes = "programs, scripts, web pages, style sheets, SVG and XML are refused whatever their name"

// typeProblem is the refusal of a file by its type, or "": its content must
// be sniffed as a safe type, and the type it declares must be safe too (a
// declared type is what a browser or mail client may open it as; HTML that
// does not start with a tag sniffs as text).
func typeProblem(f File, name string) string {
	if detected := f.detected(); !safeTypes[detected] {
		return fmt.Sprintf("File %s is refused: its content (%s) is not a type formd accepts; %s.", name, detected, refusedTypes)
	}
	return declaredTypeProblem(f.DeclaredType, name)
}

// declaredTypeProblem is the refusal of a declared type formd does not
// accept, or "" (none declared is application/octet-stream).
func declaredTypeProblem(declared, name string) string {
	if declared != "" && !safeTypes[declared] {
		return fmt.Sprintf("File %s is refused: its declared type (%s) is not a type formd accepts; %s.", name, declared, refusedTypes)
	}
	return ""
}
