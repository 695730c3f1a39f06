package main

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"maps"
	"mime"
	"net/http"
	"slices"
	"strings"
	"text/template"
	"time"
)

// maxBody bounds a submission's body, as any public endpoint must.
const maxBody = 1 << 20

// mailTemplate is every mail the relay sends, parsed once. The fields go in
// the body only, so a value cannot add a header.
var mailTemplate = template.Must(template.New("mail").Parse(`From: {{.From}}
To: {{.To}}
Subject: New form submission
Date: {{.Date}}
Message-ID: <{{.ID}}@relay>
MIME-Version: 1.0
Content-Type: text/plain; charset=utf-8
Content-Transfer-Encoding: 8bit

{{range .Fields}}{{.Name}}: {{.Value}}
{{end}}`))

// mailData fills mailTemplate.
type mailData struct {
	From, To, Date, ID string
	Fields             []field
}

// field is one line of a mail's body.
type field struct{ Name, Value string }

// Answers are written as prepared bytes: they never change.
var (
	answerOK       = []byte(`{"success":true,"message":"Form submitted successfully"}`)
	answerNoKey    = answerError("access_key is required")
	answerBadBody  = answerError("the body is neither a JSON object nor a form")
	answerNotSent  = answerError("the submission could not be sent")
	answerTooLarge = answerError("the body is too large")
)

func answerError(message string) []byte {
	b, _ := json.Marshal(map[string]any{"success": false, "message": message})
	return b
}

// newHandler serves GET /healthz and POST /submit. It logs nothing per
// request: the bench runs formd at FORMD_LOG_LEVEL=error, so neither side
// pays for an access log.
func newHandler(m *mailer) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok"))
	})
	mux.HandleFunc("POST /submit", func(w http.ResponseWriter, r *http.Request) { submit(w, r, m) })
	return mux
}

// submit renders the submission as a mail and sends it before answering:
// the 200 means the SMTP server has taken the message.
func submit(w http.ResponseWriter, r *http.Request, m *mailer) {
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	fields, err := readFields(r)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			reply(w, http.StatusRequestEntityTooLarge, answerTooLarge)
			return
		}
		reply(w, http.StatusBadRequest, answerBadBody)
		return
	}
	if key, _ := fields["access_key"].(string); key == "" {
		reply(w, http.StatusBadRequest, answerNoKey)
		return
	}
	msg, err := render(m.from, m.to, fields)
	if err != nil {
		reply(w, http.StatusInternalServerError, answerNotSent)
		return
	}
	if err := m.send(msg); err != nil {
		reply(w, http.StatusBadGateway, answerNotSent)
		return
	}
	reply(w, http.StatusOK, answerOK)
}

func reply(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// readFields reads a JSON object or a urlencoded or multipart form.
func readFields(r *http.Request) (map[string]any, error) {
	fields := map[string]any{}
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct == "application/json" {
		if err := json.NewDecoder(r.Body).Decode(&fields); err != nil {
			return nil, err
		}
		if fields == nil { // the body was null
			return nil, errors.New("not a JSON object")
		}
		return fields, nil
	}
	if err := r.ParseMultipartForm(maxBody); err != nil && !errors.Is(err, http.ErrNotMultipart) {
		return nil, err
	}
	for name, values := range r.PostForm {
		if len(values) == 1 {
			fields[name] = values[0]
		} else {
			fields[name] = values
		}
	}
	return fields, nil
}

// render is the mail of one submission: a "name: value" line per field,
// sorted by name, the access key left out.
func render(from, to string, fields map[string]any) ([]byte, error) {
	var id [16]byte
	_, _ = rand.Read(id[:])
	d := mailData{From: from, To: to, Date: time.Now().Format(time.RFC1123Z), ID: hex.EncodeToString(id[:])}
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		if name != "access_key" {
			d.Fields = append(d.Fields, field{Name: name, Value: fieldValue(fields[name])})
		}
	}
	var b bytes.Buffer
	b.Grow(1024)
	if err := mailTemplate.Execute(&b, d); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// fieldValue is a field as text: a string as it is, a form field sent
// several times joined with commas, any other JSON value as JSON.
func fieldValue(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []string:
		return strings.Join(x, ", ")
	default:
		b, err := json.Marshal(x)
		if err != nil {
			return ""
		}
		return string(b)
	}
}
