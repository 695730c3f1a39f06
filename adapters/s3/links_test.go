package s3_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/formd/formd/adapters/s3"
	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
)

func TestClientUploadsToTheUploadTarget(t *testing.T) {
	st := newStore(t, fakeS3(t), "uploads/")
	ctx := context.Background()
	content := []byte("%PDF-1.7 a small document")

	target, err := st.UploadTarget(ctx, application.ObjectUpload{
		Key: "up-1", ContentType: "application/pdf", Size: int64(len(content)), Expires: time.Now().Add(15 * time.Minute),
	})
	if err != nil {
		t.Fatal(err)
	}
	if target.Method != http.MethodPut {
		t.Fatalf("method = %q, want PUT", target.Method)
	}
	// If-None-Match: * makes the bucket refuse to replace an uploaded object
	// (gofakes3 does not check it; a real S3 or MinIO does).
	if want := map[string]string{"Content-Type": "application/pdf", "If-None-Match": "*"}; len(target.Headers) != 2 ||
		target.Headers["Content-Type"] != want["Content-Type"] || target.Headers["If-None-Match"] != "*" {
		t.Fatalf("headers = %v, want %v", target.Headers, want)
	}
	if _, _, err := st.Open(ctx, "up-1"); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("before the upload, open: %v, want not found", err)
	}

	// What a browser does with the answer of GET /upload: no credentials,
	// only the method, URL and headers.
	req, err := http.NewRequest(target.Method, target.URL, bytes.NewReader(content))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range target.Headers {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("upload: %s %s", res.Status, body)
	}

	r, size, err := st.Open(ctx, "up-1")
	if err != nil {
		t.Fatalf("open after the upload: %v", err)
	}
	defer r.Close()
	got, _ := io.ReadAll(r)
	if size != int64(len(content)) || !bytes.Equal(got, content) {
		t.Fatalf("stored %d bytes %q, want %q", size, got, content)
	}
}

// gofakes3 checks neither signatures nor expiry, so a bucket's refusal of
// a late or altered upload cannot be shown here. What can be: the URL is
// signed for the reserved type and size (S3 then refuses any other) and
// for a lifetime that ends by the reservation's expiry, never after.
func TestUploadTargetIsSignedForTypeSizeAndExpiry(t *testing.T) {
	st := newStore(t, fakeS3(t), "")
	expires := time.Now().Add(10 * time.Minute)
	target, err := st.UploadTarget(context.Background(), application.ObjectUpload{
		Key: "up-2", ContentType: "image/png", Size: 1234, Expires: expires,
	})
	if err != nil {
		t.Fatal(err)
	}
	q := mustQuery(t, target.URL)
	if got := q.Get("X-Amz-SignedHeaders"); got != "content-length;content-type;host;if-none-match" {
		t.Fatalf("X-Amz-SignedHeaders = %q, want content-length;content-type;host;if-none-match", got)
	}
	assertEndsBy(t, q, expires)
}

// TestDownloadURL holds that the bucket serves a download as bytes to save,
// never as the type the object was stored with (a script's, here).
func TestDownloadURL(t *testing.T) {
	st := newStore(t, fakeS3(t), "uploads/")
	ctx := context.Background()
	content := []byte("alert(document.domain)\n")
	if err := st.Put(ctx, "dl-1", bytes.NewReader(content), int64(len(content)), "text/javascript"); err != nil {
		t.Fatal(err)
	}
	expires := time.Now().Add(time.Hour)
	link, err := st.DownloadURL(ctx, application.ObjectDownload{
		Key: "dl-1", Name: "Résumé \"final\"\r\n.csv", Expires: expires,
	})
	if err != nil {
		t.Fatal(err)
	}
	assertEndsBy(t, mustQuery(t, link), expires)

	res, err := http.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	got, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK || !bytes.Equal(got, content) {
		t.Fatalf("download: %s %q, want 200 %q", res.Status, got, content)
	}
	wantDisposition := `attachment; filename="R_sum_ _final_.csv"; filename*=UTF-8''R%C3%A9sum%C3%A9%20%22final%22.csv`
	if cd := res.Header.Get("Content-Disposition"); cd != wantDisposition {
		t.Fatalf("Content-Disposition = %q, want %q", cd, wantDisposition)
	}
	if ct := res.Header.Get("Content-Type"); ct != "application/octet-stream" {
		t.Fatalf("Content-Type = %q, want application/octet-stream", ct)
	}
}

func TestDownloadURLWithoutName(t *testing.T) {
	st := newStore(t, fakeS3(t), "")
	link, err := st.DownloadURL(context.Background(), application.ObjectDownload{Key: "k", Expires: time.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	q := mustQuery(t, link)
	if got := q.Get("response-content-type"); got != "application/octet-stream" {
		t.Fatalf("response-content-type = %q, want application/octet-stream", got)
	}
	if got, want := q.Get("response-content-disposition"), `attachment; filename="file"; filename*=UTF-8''file`; got != want {
		t.Fatalf("response-content-disposition = %q, want %q", got, want)
	}
}

func TestLinksRefuseLifetimesS3CannotSign(t *testing.T) {
	st := newStore(t, fakeS3(t), "")
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		expires time.Time
	}{
		{"already expired", time.Now().Add(-time.Minute)},
		{"beyond seven days", time.Now().Add(8 * 24 * time.Hour)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := st.UploadTarget(ctx, application.ObjectUpload{Key: "k", ContentType: "text/plain", Size: 1, Expires: tc.expires}); err == nil {
				t.Error("UploadTarget signed it")
			}
			if _, err := st.DownloadURL(ctx, application.ObjectDownload{Key: "k", Name: "a.txt", Expires: tc.expires}); err == nil {
				t.Error("DownloadURL signed it")
			}
		})
	}
}

func TestVerifyIsAlwaysFalse(t *testing.T) {
	st := newStore(t, fakeS3(t), "")
	target, err := st.UploadTarget(context.Background(), application.ObjectUpload{Key: "k", ContentType: "text/plain", Size: 1, Expires: time.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	sig := mustQuery(t, target.URL).Get("X-Amz-Signature")
	if st.Verify(application.ObjectPut, "k", time.Now().Add(time.Hour), sig) {
		t.Fatal("Verify accepted a bucket's signature")
	}
}

func mustQuery(t *testing.T, link string) url.Values {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	if u.Hostname() != "127.0.0.1" {
		t.Fatalf("link %s does not point at the bucket's server", link)
	}
	return u.Query()
}

// assertEndsBy checks that a presigned URL's X-Amz-Date plus X-Amz-Expires
// is at most expires and no more than the two whole-second roundings
// before it. The sum does not depend on when the URL was signed.
func assertEndsBy(t *testing.T, q url.Values, expires time.Time) {
	t.Helper()
	signed, err := time.Parse("20060102T150405Z", q.Get("X-Amz-Date"))
	if err != nil {
		t.Fatalf("X-Amz-Date: %v", err)
	}
	seconds, err := strconv.Atoi(q.Get("X-Amz-Expires"))
	if err != nil {
		t.Fatalf("X-Amz-Expires: %v", err)
	}
	end := signed.Add(time.Duration(seconds) * time.Second)
	if end.After(expires) || end.Before(expires.Add(-2*time.Second)) {
		t.Fatalf("the URL ends at %s, want by %s (at most 2 s before)", end, expires)
	}
	if !strings.Contains(q.Get("X-Amz-Credential"), "/us-east-1/s3/aws4_request") {
		t.Fatalf("X-Amz-Credential = %q, want the configured region", q.Get("X-Amz-Credential"))
	}
}

func TestLinksWithoutARegionAskTheBucket(t *testing.T) {
	st, err := s3.New(s3.Config{Endpoint: fakeS3(t), Bucket: testBucket, AccessKey: "formd", SecretKey: testSecret})
	if err != nil {
		t.Fatal(err)
	}
	link, err := st.DownloadURL(context.Background(), application.ObjectDownload{Key: "k", Name: "a.txt", Expires: time.Now().Add(time.Hour)})
	if err != nil {
		t.Fatalf("download URL without a region: %v", err)
	}
	// gofakes3 names no location, which S3 reads as us-east-1.
	if cred := mustQuery(t, link).Get("X-Amz-Credential"); !strings.Contains(cred, "/us-east-1/s3/aws4_request") {
		t.Fatalf("X-Amz-Credential = %q, want us-east-1", cred)
	}
}
