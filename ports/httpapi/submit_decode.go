package httpapi

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/submission"
)

// Submission limits (docs/submitting.md: Limits).
const (
	MaxSubmissionBytes = 256 << 10
	MaxFields          = 100
	MaxFieldNameBytes  = 100
	MaxFieldValueBytes = domain.MaxFieldValueBytes
	// MaxMultipartBytes bounds a multipart body: the fields' own limit plus
	// the server-wide ceiling of the files together, plus part headers.
	MaxMultipartBytes = MaxSubmissionBytes + form.MaxTotalFileBytes + 64<<10
	// maxFiles bounds the file parts read from one body; each one past the
	// server-wide ceiling is counted, not kept, so the count gate can refuse
	// it with the form's own message.
	maxFiles = 100
)

// decodeError is a client error in a submission body: always a 4xx.
type decodeError struct {
	status  int
	message string
	// retryAfter, when set, is sent as Retry-After (a 429).
	retryAfter time.Duration
}

func (e *decodeError) Error() string { return e.message }

func badRequest(format string, args ...any) error {
	return &decodeError{status: http.StatusBadRequest, message: fmt.Sprintf(format, args...)}
}

// decodeSubmission reads a submission body of any accepted content type;
// the files of a multipart body go through in, which a multipart body needs.
// Each format has its file (submit_decode_json.go, submit_decode_urlencoded.go,
// submit_multipart.go), and every one gathers its fields in a fieldSet
// (submit_decode_fields.go), which holds the limits they share.
func decodeSubmission(r *http.Request, in *fileIntake) ([]submission.Field, []application.UploadedFile, error) {
	mediaType, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil {
		return nil, nil, badRequest("Content-Type must be application/json, application/x-www-form-urlencoded or multipart/form-data.")
	}
	if cs := strings.ToLower(params["charset"]); cs != "" && cs != "utf-8" && cs != "utf8" {
		return nil, nil, badRequest("Only UTF-8 bodies are accepted (charset=%s was sent).", safeName(cs))
	}
	if mediaType == "multipart/form-data" {
		return decodeMultipart(http.MaxBytesReader(nil, r.Body, MaxMultipartBytes), params["boundary"], in)
	}
	body := http.MaxBytesReader(nil, r.Body, MaxSubmissionBytes)
	switch mediaType {
	case "application/json":
		raw, err := readAll(body)
		if err != nil {
			return nil, nil, err
		}
		fields, err := decodeJSONFields(raw)
		return fields, nil, err
	case "application/x-www-form-urlencoded":
		raw, err := readAll(body)
		if err != nil {
			return nil, nil, err
		}
		fields, err := decodeURLEncoded(string(raw))
		return fields, nil, err
	}
	return nil, nil, badRequest("Content-Type must be application/json, application/x-www-form-urlencoded or multipart/form-data.")
}

func readAll(r io.Reader) ([]byte, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, bodyError(err)
	}
	return b, nil
}

func bodyError(err error) error {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		if tooBig.Limit == MaxMultipartBytes {
			return &decodeError{status: http.StatusRequestEntityTooLarge, message: fmt.Sprintf(
				"Submission is too large: at most %d KiB of fields and %d MiB of files.", MaxSubmissionBytes>>10, form.MaxTotalFileBytes>>20)}
		}
		return &decodeError{status: http.StatusRequestEntityTooLarge, message: fmt.Sprintf("Submission is too large: at most %d KiB.", MaxSubmissionBytes>>10)}
	}
	if errors.Is(err, errBodyTooSlow) {
		return &decodeError{status: http.StatusRequestTimeout, message: errBodyTooSlow.Error()}
	}
	return badRequest("The request body could not be read.")
}
