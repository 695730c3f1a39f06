package httpapi

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"sync"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/form"
)

// The client script in another language than English is
// /client/script.js?lang=<tag>: the same file with its English messages
// replaced by a catalog's (docs/languages.md). Each language is its own
// address, so it is cached as the English one is and a site pins its
// Subresource Integrity hash like the English one's.

// scriptStatusMarker stands for the HTTP status in a rendered message; the
// script joins the status in at run time.
const scriptStatusMarker = "\x00status\x00"

// scriptMessages are the script's English messages, as its source writes
// them, and the catalog message each one becomes. A message with the
// status code is the two string literals around `response.status`.
var scriptMessages = []struct {
	source, id string
	status     bool
}{
	{`"Sending\u2026"`, "script.sending", false},
	{`"The form could not be sent. Check your connection and try again."`, "script.offline", false},
	{`"The file could not be uploaded."`, "script.upload_failed", false},
	{`"The form could not be sent (HTTP " + response.status + ")."`, "script.http_error", true},
	{`"Request id: " + answer.requestId`, "page.request_id", false},
}

// localizedScript is the client script in one language, with its ETag.
type localizedScript struct {
	body []byte
	etag string
}

// scriptsByLanguage caches each language's script; the catalogs are
// embedded, so one process renders each once.
var scriptsByLanguage sync.Map

// clientScriptIn is the client script in lang (a tag of form.Languages);
// false for a language formd has no catalog of.
func clientScriptIn(m application.Messages, lang string) (localizedScript, bool) {
	if lang == "" || lang == "en" || m == nil {
		return localizedScript{clientScript, clientScriptETag}, lang == "" || form.IsLanguage(lang)
	}
	if !form.IsLanguage(lang) {
		return localizedScript{}, false
	}
	if cached, ok := scriptsByLanguage.Load(lang); ok {
		return cached.(localizedScript), true
	}
	body := clientScript
	for _, msg := range scriptMessages {
		body = bytes.Replace(body, []byte(msg.source), []byte(scriptExpression(m, lang, msg.id, msg.status)), 1)
	}
	sum := sha256.Sum256(body)
	script := localizedScript{body: body, etag: `"` + hex.EncodeToString(sum[:16]) + `"`}
	scriptsByLanguage.Store(lang, script)
	return script, true
}

// scriptExpression is a catalog message as a JavaScript expression: a
// string literal, or for the status message and the request id the
// literals around the value the script joins in.
func scriptExpression(m application.Messages, lang, id string, status bool) string {
	if id == "page.request_id" {
		before, after, _ := strings.Cut(m.Text(lang, id, map[string]any{"RequestID": scriptStatusMarker}), scriptStatusMarker)
		return jsString(before) + " + answer.requestId + " + jsString(after)
	}
	if !status {
		return jsString(m.Text(lang, id, nil))
	}
	before, after, _ := strings.Cut(m.Text(lang, id, map[string]any{"Status": scriptStatusMarker}), scriptStatusMarker)
	return jsString(before) + " + response.status + " + jsString(after)
}

// jsString is s as a JavaScript string literal (JSON's, which escapes what
// a script must not hold raw).
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
