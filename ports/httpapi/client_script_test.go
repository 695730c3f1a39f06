package httpapi

import (
	"bytes"
	"compress/gzip"
	"crypto/sha512"
	"encoding/base64"
	"net/http"
	"os"
	"strings"
	"testing"
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
