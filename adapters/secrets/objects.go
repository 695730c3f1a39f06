package secrets

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/formd/formd/application"
)

// ObjectLinkPurpose names the key that signs the URLs of formd's built-in
// object store (Key.Derive).
const ObjectLinkPurpose = "object-links"

// ObjectRoute is where formd serves the built-in store's objects: a signed
// PUT uploads one, a signed GET downloads it.
const ObjectRoute = "/upload/objects/"

// BuiltinObjectLinks implements application.ObjectLinks for the built-in
// store: URLs on formd itself, signed with HMAC-SHA256 over the operation,
// the key and the expiry under a key derived from the server secret. Links
// signed under an older key of the ring still verify until they expire.
type BuiltinObjectLinks struct {
	base         string
	downloadBase string
	keys         [][]byte // the current key's first
}

// NewBuiltinObjectLinks makes upload links under baseURL (FORMD_BASE_URL)
// and download links under downloadBaseURL (FORMD_DOWNLOAD_BASE_URL), or
// baseURL too when that is empty. A separate origin for downloads keeps
// uploaded bytes off the origin sites allowlist for formd's script.
func NewBuiltinObjectLinks(r Keyring, baseURL, downloadBaseURL string) (*BuiltinObjectLinks, error) {
	if downloadBaseURL == "" {
		downloadBaseURL = baseURL
	}
	for _, b := range []string{baseURL, downloadBaseURL} {
		u, err := url.Parse(b)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, errors.New("secrets: object links need an absolute http(s) base URL")
		}
	}
	l := &BuiltinObjectLinks{base: strings.TrimRight(baseURL, "/"), downloadBase: strings.TrimRight(downloadBaseURL, "/")}
	for _, k := range r.All() {
		l.keys = append(l.keys, k.Derive(ObjectLinkPurpose))
	}
	return l, nil
}

func objectMAC(key []byte, op application.ObjectOp, objectKey string, expires int64) []byte {
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(string(op) + "\n" + objectKey + "\n" + strconv.FormatInt(expires, 10)))
	return mac.Sum(nil)
}

func (l *BuiltinObjectLinks) url(op application.ObjectOp, key string, expires time.Time) string {
	exp := expires.Unix()
	q := url.Values{"expires": {strconv.FormatInt(exp, 10)}, "signature": {hex.EncodeToString(objectMAC(l.keys[0], op, key, exp))}}
	base := l.base
	if op == application.ObjectGet {
		base = l.downloadBase
	}
	return base + ObjectRoute + url.PathEscape(key) + "?" + q.Encode()
}

// UploadTarget implements application.ObjectLinks: a signed PUT on formd
// with the declared type as Content-Type.
func (l *BuiltinObjectLinks) UploadTarget(_ context.Context, u application.ObjectUpload) (application.UploadTarget, error) {
	return application.UploadTarget{Method: "PUT", URL: l.url(application.ObjectPut, u.Key, u.Expires),
		Headers: map[string]string{"Content-Type": u.ContentType}}, nil
}

// DownloadURL implements application.ObjectLinks: a signed GET on formd
// (under the download base URL), which serves the object under the name
// its reservation holds.
func (l *BuiltinObjectLinks) DownloadURL(_ context.Context, d application.ObjectDownload) (string, error) {
	return l.url(application.ObjectGet, d.Key, d.Expires), nil
}

// Verify implements application.ObjectLinks in constant time, under every
// accepted key. It checks the signature only: the caller checks the expiry
// against its clock.
func (l *BuiltinObjectLinks) Verify(op application.ObjectOp, key string, expires time.Time, signature string) bool {
	got, err := hex.DecodeString(signature)
	if err != nil {
		return false
	}
	for _, k := range l.keys {
		if hmac.Equal(got, objectMAC(k, op, key, expires.Unix())) {
			return true
		}
	}
	return false
}
