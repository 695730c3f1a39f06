package httpapi

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/submission"
)

// fileIntake decides, as a multipart post's file parts arrive, how much of
// each to keep, so that what a post costs follows what its form allows:
// nothing for a form that takes no files, or for no form at all (reading
// stops at the first file part: no body can change that answer); the
// form's own size limit for a form that takes them; the server-wide
// ceiling while the access key has not arrived yet. What it keeps is
// charged to the file budget as it arrives and spooled (file_spool.go);
// close gives both back when the request ends.
type fileIntake struct {
	// pathKey is the access key of /submit/{accessKey}, if any.
	pathKey string
	// allowance looks the form up; nil keeps every file up to the ceiling
	// (the decoder's own tests).
	allowance func(accessKey string) (application.AllowedFiles, error)
	hold      *fileHold
	// tempDir holds the spooled files ("" for the system's).
	tempDir string

	known   bool
	allowed application.AllowedFiles
	// spools holds each file part's kept content, by the part's index; nil
	// for a part kept not at all.
	spools []*spool
}

// errNoForm stops reading a multipart body: its access key names no form.
var errNoForm = errors.New("no form has this access key")

// decide looks the form up once, when its access key is known.
func (in *fileIntake) decide(set *fieldSet) error {
	if in.known || in.allowance == nil {
		return nil
	}
	key := in.pathKey
	if key == "" {
		env, _ := submission.Split(set.result())
		key = env.AccessKey
	}
	if key == "" {
		return nil
	}
	a, err := in.allowance(key)
	if err != nil {
		return err
	}
	in.known, in.allowed = true, a
	if !a.FormFound {
		return errNoForm
	}
	return nil
}

// keepLimit is how many bytes of the index'th file part to keep.
func (in *fileIntake) keepLimit(index int) int64 {
	switch {
	case index >= form.MaxFilesCeiling:
		return 0
	case !in.known:
		return form.MaxFileBytesCeiling
	case index >= in.allowed.MaxFiles:
		return 0
	}
	return in.allowed.MaxFileBytes
}

// load reads back the files kept whole, once the body has ended and the
// form is known; a file the form cannot take stays unread.
func (in *fileIntake) load(set *fieldSet, files []application.UploadedFile) error {
	if err := in.decide(set); err != nil && !errors.Is(err, errNoForm) {
		return err
	}
	if in.allowance != nil && !in.known {
		return nil // no access key at all: the submission is refused for that
	}
	for i := range files {
		sp := in.spools[i]
		if sp == nil || sp.size != files[i].Size || sp.size > in.keepLimit(i) {
			continue
		}
		content, err := sp.content()
		if err != nil {
			return err
		}
		files[i].Content = content
		files[i].Unread = false
	}
	return nil
}

// close removes the spooled files and gives the budget back.
func (in *fileIntake) close() {
	for _, s := range in.spools {
		if s != nil {
			s.remove()
		}
	}
	in.spools = nil
	in.hold.release()
}

// decodeMultipart reads a multipart body part by part, in bounded memory:
// the body is bounded as a whole (MaxMultipartBytes), field values and all
// non-file parts together as the other bodies are, and file content as the
// intake allows; a file not kept whole is counted and marked unread, and
// the uploads gate refuses it with the form's own limits.
func decodeMultipart(body io.Reader, boundary string, in *fileIntake) ([]submission.Field, []application.UploadedFile, error) {
	if boundary == "" {
		return nil, nil, badRequest("multipart/form-data needs a boundary parameter.")
	}
	// mime/multipart ends quietly on some truncated bodies; a complete body
	// always carries its closing delimiter.
	watch := &delimiterWatch{r: body, delim: []byte("--" + boundary + "--")}
	mr := multipart.NewReader(watch, boundary)
	var set fieldSet
	var files []application.UploadedFile
	var fieldBytes int64
	malformed := func(err error) error {
		var tooBig *http.MaxBytesError
		var de *decodeError
		switch {
		case errors.As(err, &tooBig), errors.Is(err, errBodyTooSlow):
			return bodyError(err)
		case errors.As(err, &de): // the file budget's refusal
			return de
		}
		return badRequest("The multipart body is malformed.")
	}
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, malformed(err)
		}
		name := part.FormName()
		if part.FileName() != "" {
			if len(files) >= maxFiles {
				return nil, nil, badRequest("Too many files: at most %d.", form.MaxFilesCeiling)
			}
			if err := in.decide(&set); errors.Is(err, errNoForm) {
				// The application answers from the fields read so far: the
				// refusal of an unknown key depends on nothing else.
				return set.result(), files, nil
			} else if err != nil {
				return nil, nil, err
			}
			f, err := in.readFilePart(part, name, len(files))
			if err != nil {
				return nil, nil, malformed(err)
			}
			files = append(files, f)
			continue
		}
		value, err := io.ReadAll(io.LimitReader(part, MaxFieldValueBytes+1))
		if err != nil {
			return nil, nil, malformed(err)
		}
		if fieldBytes += int64(len(value)); fieldBytes > MaxSubmissionBytes {
			return nil, nil, &decodeError{status: http.StatusRequestEntityTooLarge,
				message: fmt.Sprintf("Submission is too large: at most %d KiB of fields.", MaxSubmissionBytes>>10)}
		}
		if err := set.add(name, string(value)); err != nil {
			return nil, nil, err
		}
	}
	if _, err := io.Copy(io.Discard, watch); err != nil {
		return nil, nil, malformed(err)
	}
	if !watch.seen {
		return nil, nil, badRequest("The multipart body is malformed: its closing boundary is missing.")
	}
	if err := in.load(&set, files); err != nil {
		return nil, nil, err
	}
	return set.result(), files, nil
}

// readFilePart reads the index'th file part: as much content as the intake
// keeps for it, charged to the file budget as it arrives and spooled, the
// rest only counted; its name, declared type and size. The content is
// loaded once the body has ended (load); the application sniffs it.
func (in *fileIntake) readFilePart(part *multipart.Part, field string, index int) (application.UploadedFile, error) {
	f := application.UploadedFile{File: submission.File{Field: field, Name: part.FileName(),
		DeclaredType: declaredType(part.Header.Get("Content-Type")), Unread: true}}
	var sp *spool
	var kept int64
	if limit := in.keepLimit(index); limit > 0 {
		sp = &spool{dir: in.tempDir}
		n, err := io.Copy(sp, &chargedReader{r: io.LimitReader(part, limit), hold: in.hold})
		kept = n
		if err != nil {
			in.spools = append(in.spools, sp) // removed with the request
			return f, err
		}
	}
	in.spools = append(in.spools, sp)
	rest, err := io.Copy(io.Discard, part)
	f.Size = kept + rest
	return f, err
}

// declaredType is a part's Content-Type without parameters, lower-case;
// the application puts it under its canonical name when it sniffs the file.
func declaredType(header string) string {
	t, _, err := mime.ParseMediaType(header)
	if err != nil {
		return ""
	}
	return t
}

// delimiterWatch passes a body through and notes whether the multipart
// closing delimiter went by, even split across reads.
type delimiterWatch struct {
	r     io.Reader
	delim []byte
	tail  []byte
	seen  bool
}

func (w *delimiterWatch) Read(p []byte) (int, error) {
	n, err := w.r.Read(p)
	if n > 0 && !w.seen {
		window := append(w.tail, p[:n]...)
		if bytes.Contains(window, w.delim) {
			w.seen = true
		}
		keep := min(len(window), len(w.delim)-1)
		w.tail = append(w.tail[:0], window[len(window)-keep:]...)
	}
	return n, err
}
