package httpapi

import (
	"bytes"
	"compress/gzip"
	"crypto/sha512"
	"encoding/base64"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"

	"github.com/formd/formd/application"
)

func TestClientScriptIsSmall(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(clientScript); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if buf.Len() >= 5<<10 {
		t.Errorf("client/script.js is %d bytes gzipped; the budget is under 5 KB", buf.Len())
	}
}

func TestClientScriptServedWithCaching(t *testing.T) {
	rec := serve(t, http.MethodGet, ClientScriptPath, http.Header{"Origin": {"https://site.example"}}, "")
	if rec.Code != http.StatusOK || !bytes.Equal(rec.Body.Bytes(), clientScript) {
		t.Fatalf("GET %s = %d (%d bytes)", ClientScriptPath, rec.Code, rec.Body.Len())
	}
	h := rec.Header()
	for k, want := range map[string]string{
		"Content-Type":                "text/javascript; charset=utf-8",
		"Access-Control-Allow-Origin": "*",
		"Cache-Control":               "public, max-age=3600",
		"X-Content-Type-Options":      "nosniff",
	} {
		if got := h.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	etag := h.Get("ETag")
	if !strings.HasPrefix(etag, `"`) || len(etag) < 10 {
		t.Fatalf("ETag = %q", etag)
	}
	again := serve(t, http.MethodGet, ClientScriptPath, http.Header{"If-None-Match": {`"other", ` + etag}}, "")
	if again.Code != http.StatusNotModified || again.Body.Len() != 0 {
		t.Errorf("revalidation with the ETag = %d (%d bytes), want 304 and no body", again.Code, again.Body.Len())
	}
	stale := serve(t, http.MethodGet, ClientScriptPath, http.Header{"If-None-Match": {`"other"`}}, "")
	if stale.Code != http.StatusOK {
		t.Errorf("revalidation with another ETag = %d, want 200", stale.Code)
	}
}

// docs/submitting.md shows the <script> tag with its Subresource Integrity
// hash; a changed script must change that page too, or every site using it
// breaks.
func TestDocumentedIntegrityHashMatchesScript(t *testing.T) {
	readme, err := os.ReadFile("../../docs/submitting.md")
	if err != nil {
		t.Fatal(err)
	}
	sum := sha512.Sum384(clientScript)
	want := `integrity="sha384-` + base64.StdEncoding.EncodeToString(sum[:]) + `"`
	if !bytes.Contains(readme, []byte(want)) {
		t.Errorf("docs/submitting.md must show the script tag with %s (recompute it with the command the page gives)", want)
	}
}

// germanWords is a catalog stand-in with German words for the script's
// messages.
type germanWords struct{ messageIDs }

func (germanWords) Text(_, id string, data map[string]any) string {
	switch id {
	case "script.sending":
		return "Wird gesendet…"
	case "script.http_error":
		return fmt.Sprintf("Nicht gesendet (HTTP %v).", data["Status"])
	case "page.request_id":
		return fmt.Sprintf("Anfrage-ID: %v", data["RequestID"])
	}
	return "<" + id + ">"
}

// ?lang=de serves the script with every English message replaced by the
// catalog's, as JavaScript string literals, cacheable with its own ETag;
// an unknown language is a 404.
func TestClientScriptSpeaksTheLanguageItIsAskedFor(t *testing.T) {
	for _, msg := range scriptMessages {
		if !bytes.Contains(clientScript, []byte(msg.source)) {
			t.Errorf("client/script.js no longer has %s: scriptMessages must follow it", msg.source)
		}
	}
	script, ok := clientScriptIn(germanWords{}, "de")
	if !ok {
		t.Fatal("no German script")
	}
	body := string(script.body)
	for _, want := range []string{`"Wird gesendet…"`, `"Nicht gesendet (HTTP " + response.status + ")."`,
		`"Anfrage-ID: " + answer.requestId + ""`, `"\u003cscript.offline\u003e"`, `"\u003cscript.upload_failed\u003e"`} {
		if !strings.Contains(body, want) {
			t.Errorf("the German script lacks %s", want)
		}
	}
	for _, msg := range scriptMessages {
		if strings.Contains(body, msg.source) {
			t.Errorf("the German script still has %s", msg.source)
		}
	}
	if script.etag == clientScriptETag {
		t.Error("the German script has the English one's ETag")
	}
	if english, ok := clientScriptIn(germanWords{}, "en"); !ok || !bytes.Equal(english.body, clientScript) {
		t.Error("lang=en is the English script")
	}
	if _, ok := clientScriptIn(germanWords{}, "xx"); ok {
		t.Error("a language formd has no catalog of")
	}
	engine := NewServer(&application.Application{}, currentSchema{}, slog.New(slog.DiscardHandler),
		Config{BaseURL: "https://forms.example.test", SubmitRatePerIP: 1, SubmitBurstPerIP: 1, NewLimiter: burstOnly, Messages: germanWords{}}).(*gin.Engine)
	for path, want := range map[string]int{ClientScriptPath + "?lang=de": http.StatusOK, ClientScriptPath + "?lang=klingon": http.StatusNotFound} {
		rec := httptest.NewRecorder()
		engine.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		if rec.Code != want {
			t.Errorf("GET %s = %d, want %d", path, rec.Code, want)
		}
		if want == http.StatusOK && (rec.Header().Get("Cache-Control") != "public, max-age=3600" || !strings.Contains(rec.Body.String(), "Wird gesendet")) {
			t.Errorf("GET %s: %v", path, rec.Header())
		}
	}
}
