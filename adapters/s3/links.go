package s3

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/formd/formd/application"
)

// S3 accepts presigned URLs that live from one second to seven days.
const (
	minLinkLifetime = time.Second
	maxLinkLifetime = 7 * 24 * time.Hour
)

// defaultContentType is what an object without a declared type is served as.
const defaultContentType = "application/octet-stream"

// UploadTarget presigns a PUT of u.Key until u.Expires. The signature covers
// Content-Type and Content-Length as well, so the bucket itself refuses an
// upload of another type or size than the one reserved, and If-None-Match:
// *, so it refuses to replace an object already uploaded (S3 conditional
// writes): once formd scanned an object, the link cannot swap it for
// unscanned bytes. The client sends the returned headers; its HTTP library
// sets Content-Length from the body.
func (s *Store) UploadTarget(ctx context.Context, u application.ObjectUpload) (application.UploadTarget, error) {
	if u.Size < 0 {
		return application.UploadTarget{}, fmt.Errorf("s3: upload URL for %q: negative size %d", u.Key, u.Size)
	}
	lifetime, err := linkLifetime(u.Expires)
	if err != nil {
		return application.UploadTarget{}, fmt.Errorf("s3: upload URL for %q: %w", u.Key, err)
	}
	contentType := u.ContentType
	if contentType == "" {
		contentType = defaultContentType
	}
	signed := http.Header{
		"Content-Type":   {contentType},
		"Content-Length": {strconv.FormatInt(u.Size, 10)},
		"If-None-Match":  {"*"},
	}
	link, err := s.client.PresignHeader(ctx, http.MethodPut, s.bucket, s.object(u.Key), lifetime, nil, signed)
	if err != nil {
		return application.UploadTarget{}, fmt.Errorf("s3: upload URL for %q: %v", u.Key, err)
	}
	return application.UploadTarget{
		Method:  http.MethodPut,
		URL:     link.String(),
		Headers: map[string]string{"Content-Type": contentType, "If-None-Match": "*"},
	}, nil
}

// DownloadURL presigns a GET of d.Key until d.Expires that the bucket
// answers as formd's own download route does: an attachment named d.Name,
// of type application/octet-stream whatever the object was stored as.
func (s *Store) DownloadURL(ctx context.Context, d application.ObjectDownload) (string, error) {
	lifetime, err := linkLifetime(d.Expires)
	if err != nil {
		return "", fmt.Errorf("s3: download URL for %q: %w", d.Key, err)
	}
	params := url.Values{
		"response-content-disposition": {application.AttachmentDisposition(d.Name)},
		"response-content-type":        {application.DownloadContentType},
	}
	link, err := s.client.PresignedGetObject(ctx, s.bucket, s.object(d.Key), lifetime, params)
	if err != nil {
		return "", fmt.Errorf("s3: download URL for %q: %v", d.Key, err)
	}
	return link.String(), nil
}

// Verify is always false: the bucket checks its own links, and none of
// them point at formd's object routes.
func (s *Store) Verify(application.ObjectOp, string, time.Time, string) bool { return false }

// linkLifetime is how long a link signed now lives to end by expires, in
// whole seconds (as X-Amz-Expires counts them), so it never outlives it.
func linkLifetime(expires time.Time) (time.Duration, error) {
	d := time.Until(expires).Truncate(time.Second)
	switch {
	case d < minLinkLifetime:
		return 0, fmt.Errorf("the link would expire in under a second (%s); S3 signs for 1 s to 7 days", expires.UTC().Format(time.RFC3339))
	case d > maxLinkLifetime:
		return 0, fmt.Errorf("the link would live %s, more than the 7 days S3 allows", d)
	}
	return d, nil
}
