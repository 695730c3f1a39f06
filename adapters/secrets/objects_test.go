package secrets_test

import (
	"context"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/formd/formd/adapters/secrets"
	"github.com/formd/formd/application"
)

const objectKey = "upl_0123456789abcdef0123456789abcdef"

func objectLinks(t *testing.T, r secrets.Keyring) *secrets.BuiltinObjectLinks {
	t.Helper()
	l, err := secrets.NewBuiltinObjectLinks(r, "https://forms.example.com/", "")
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// signed is what a link carries: its key, expiry and signature.
type signed struct {
	key       string
	expires   time.Time
	signature string
}

func parseLink(t *testing.T, link string) signed {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	if u.Scheme != "https" || u.Host != "forms.example.com" || !strings.HasPrefix(u.Path, secrets.ObjectRoute) {
		t.Fatalf("link %s is not on formd's object route", link)
	}
	exp, err := strconv.ParseInt(u.Query().Get("expires"), 10, 64)
	if err != nil {
		t.Fatalf("link %s: expires: %v", link, err)
	}
	return signed{key: strings.TrimPrefix(u.Path, secrets.ObjectRoute), expires: time.Unix(exp, 0), signature: u.Query().Get("signature")}
}

// A link verifies for the operation, key and expiry it was signed for, and
// for nothing else.
func TestObjectLinksVerifyOnlyWhatTheyWereSignedFor(t *testing.T) {
	ctx := context.Background()
	l := objectLinks(t, ring(t, key(1)))
	expires := time.Date(2026, 11, 22, 13, 0, 0, 0, time.UTC)
	target, err := l.UploadTarget(ctx, application.ObjectUpload{Key: objectKey, ContentType: "application/pdf", Size: 9, Expires: expires})
	if err != nil {
		t.Fatal(err)
	}
	if target.Method != "PUT" || target.Headers["Content-Type"] != "application/pdf" {
		t.Errorf("upload target %+v: want a PUT with the declared Content-Type", target)
	}
	put := parseLink(t, target.URL)
	download, err := l.DownloadURL(ctx, application.ObjectDownload{Key: objectKey, Name: "cv.pdf", Expires: expires})
	if err != nil {
		t.Fatal(err)
	}
	get := parseLink(t, download)
	if put.key != objectKey || !put.expires.Equal(expires) || get.key != objectKey || !get.expires.Equal(expires) {
		t.Fatalf("links %+v and %+v: want the key and expiry", put, get)
	}
	if !l.Verify(application.ObjectPut, objectKey, expires, put.signature) || !l.Verify(application.ObjectGet, objectKey, expires, get.signature) {
		t.Fatal("a link does not verify for what it was signed for")
	}
	tampered := []byte(put.signature)
	tampered[0] = map[bool]byte{true: '1', false: '0'}[tampered[0] == '0']
	for name, tt := range map[string]struct {
		op        application.ObjectOp
		key       string
		expires   time.Time
		signature string
	}{
		"the upload link used to download": {application.ObjectGet, objectKey, expires, put.signature},
		"the download link used to upload": {application.ObjectPut, objectKey, expires, get.signature},
		"another key":                      {application.ObjectPut, "upl_ffffffffffffffffffffffffffffffff", expires, put.signature},
		"a later expiry":                   {application.ObjectPut, objectKey, expires.Add(time.Second), put.signature},
		"a tampered signature":             {application.ObjectPut, objectKey, expires, string(tampered)},
		"no signature":                     {application.ObjectPut, objectKey, expires, ""},
		"not hex":                          {application.ObjectPut, objectKey, expires, "zz"},
		"another server's":                 {application.ObjectPut, objectKey, expires, parseLink(t, mustTarget(t, objectLinks(t, ring(t, key(2))), expires)).signature},
	} {
		if l.Verify(tt.op, tt.key, tt.expires, tt.signature) {
			t.Errorf("%s verified", name)
		}
	}
}

func mustTarget(t *testing.T, l *secrets.BuiltinObjectLinks, expires time.Time) string {
	t.Helper()
	target, err := l.UploadTarget(context.Background(), application.ObjectUpload{Key: objectKey, ContentType: "text/plain", Size: 1, Expires: expires})
	if err != nil {
		t.Fatal(err)
	}
	return target.URL
}

// After a rotation, links signed under the old key still verify until they
// expire, and new links are signed under the new key.
func TestObjectLinksSignedUnderAnOldKeyVerifyAfterRotation(t *testing.T) {
	ctx := context.Background()
	expires := time.Date(2026, 11, 22, 13, 0, 0, 0, time.UTC)
	old := objectLinks(t, ring(t, key(1)))
	link, err := old.DownloadURL(ctx, application.ObjectDownload{Key: objectKey, Expires: expires})
	if err != nil {
		t.Fatal(err)
	}
	rotated := objectLinks(t, ring(t, key(2), key(1)))
	if !rotated.Verify(application.ObjectGet, objectKey, expires, parseLink(t, link).signature) {
		t.Fatal("a link signed under the old key does not verify after the rotation")
	}
	fresh, err := rotated.DownloadURL(ctx, application.ObjectDownload{Key: objectKey, Expires: expires})
	if err != nil {
		t.Fatal(err)
	}
	if fresh == link || old.Verify(application.ObjectGet, objectKey, expires, parseLink(t, fresh).signature) {
		t.Fatal("after the rotation, new links must be signed under the new key")
	}
	dropped := objectLinks(t, ring(t, key(2)))
	if dropped.Verify(application.ObjectGet, objectKey, expires, parseLink(t, link).signature) {
		t.Fatal("a link of a key no longer in the ring verified")
	}
}

func TestObjectLinksNeedAnAbsoluteBaseURL(t *testing.T) {
	for _, base := range []string{"", "forms.example.com", "/forms", "ftp://forms.example.com", "https://", "://bad"} {
		if _, err := secrets.NewBuiltinObjectLinks(ring(t, key(1)), base, ""); err == nil {
			t.Errorf("base URL %q accepted", base)
		}
		if base != "" {
			if _, err := secrets.NewBuiltinObjectLinks(ring(t, key(1)), "https://forms.example.com", base); err == nil {
				t.Errorf("download base URL %q accepted", base)
			}
		}
	}
	l := objectLinks(t, ring(t, key(1)))
	link, err := l.DownloadURL(context.Background(), application.ObjectDownload{Key: objectKey, Expires: time.Unix(1e9, 0)})
	if err != nil || !strings.HasPrefix(link, "https://forms.example.com"+secrets.ObjectRoute+objectKey+"?") {
		t.Fatalf("DownloadURL = %s, %v: want the trailing slash of the base URL dropped", link, err)
	}
}

// With a download base URL, download links point at that origin and
// upload links stay on formd's own; both verify on the one formd.
func TestObjectLinksDownloadFromTheDownloadBaseURL(t *testing.T) {
	l, err := secrets.NewBuiltinObjectLinks(ring(t, key(1)), "https://forms.example.com", "https://files.example-usercontent.com/")
	if err != nil {
		t.Fatal(err)
	}
	expires := time.Unix(2e9, 0)
	get, err := l.DownloadURL(context.Background(), application.ObjectDownload{Key: objectKey, Expires: expires})
	if err != nil || !strings.HasPrefix(get, "https://files.example-usercontent.com"+secrets.ObjectRoute+objectKey+"?") {
		t.Fatalf("DownloadURL = %s, %v: want a link on the download origin", get, err)
	}
	put, err := l.UploadTarget(context.Background(), application.ObjectUpload{Key: objectKey, Expires: expires})
	if err != nil || !strings.HasPrefix(put.URL, "https://forms.example.com"+secrets.ObjectRoute+objectKey+"?") {
		t.Fatalf("UploadTarget = %+v, %v: want a link on formd's origin", put, err)
	}
	u, _ := url.Parse(get)
	if !l.Verify(application.ObjectGet, objectKey, expires, u.Query().Get("signature")) {
		t.Fatal("a download link on the download origin does not verify")
	}
}
