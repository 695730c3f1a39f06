// Package s3 keeps the objects of advanced uploads in an S3-compatible
// bucket (Amazon S3, MinIO, Cloudflare R2, Backblaze B2, ...) with
// minio-go. Clients upload straight to the bucket through presigned PUT
// URLs and recipients download through presigned GET URLs, so object bytes
// pass through formd only when it scans them.
//
// An upload key k lives in the bucket under the object name Config.Prefix+k:
// the prefix lets formd share a bucket with other data (give it a trailing
// slash, such as "formd/uploads/"); an empty prefix puts the objects at the
// top of the bucket.
package s3

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
	"github.com/minio/minio-go/v7/pkg/s3utils"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
)

// Config says where the bucket is and how to sign in. It is operator
// configuration: FORMD_S3_ENDPOINT, FORMD_S3_BUCKET, FORMD_S3_ACCESS_KEY,
// FORMD_S3_SECRET_KEY, FORMD_S3_REGION and FORMD_S3_PREFIX.
type Config struct {
	// Endpoint is a URL such as https://s3.eu-west-1.amazonaws.com or
	// http://127.0.0.1:9000, or a bare host:port, which means https.
	Endpoint string
	// Bucket must exist already: formd never creates it (see Check).
	Bucket    string
	AccessKey string
	SecretKey string
	// Region signs requests; empty lets minio-go find it (from an Amazon
	// host name, or by asking the bucket once).
	Region string
	// Prefix is put before every upload key to make the object name; it
	// may be empty.
	Prefix string
}

// Store implements application.ObjectStore and application.ObjectLinks on
// one bucket, addressed path-style (endpoint/bucket/object), which every
// S3-compatible server accepts.
type Store struct {
	client   *minio.Client
	bucket   string
	prefix   string
	endpoint string // host[:port], for errors
}

var (
	_ application.ObjectStore = (*Store)(nil)
	_ application.ObjectLinks = (*Store)(nil)
)

// New checks cfg and builds a client for the bucket. It does not connect:
// Check does. Its errors name the environment variable at fault and never
// repeat the secret key.
func New(cfg Config) (*Store, error) {
	host, secure, endpointErr := parseEndpoint(cfg.Endpoint)
	var problems []error
	if endpointErr != nil {
		problems = append(problems, endpointErr)
	}
	switch {
	case strings.TrimSpace(cfg.Bucket) == "":
		problems = append(problems, errors.New("FORMD_S3_BUCKET is empty: name the bucket that keeps uploads"))
	case s3utils.CheckValidBucketNameStrict(cfg.Bucket) != nil:
		problems = append(problems, fmt.Errorf("FORMD_S3_BUCKET %q is not a valid bucket name (3 to 63 lower-case letters, digits, dots and hyphens)", cfg.Bucket))
	}
	if strings.TrimSpace(cfg.AccessKey) == "" {
		problems = append(problems, errors.New("FORMD_S3_ACCESS_KEY is empty"))
	}
	if strings.TrimSpace(cfg.SecretKey) == "" {
		problems = append(problems, errors.New("FORMD_S3_SECRET_KEY is empty"))
	}
	if strings.HasPrefix(cfg.Prefix, "/") {
		problems = append(problems, errors.New("FORMD_S3_PREFIX must not start with a slash (object names are relative to the bucket)"))
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("s3: %w", errors.Join(problems...))
	}
	client, err := minio.New(host, &minio.Options{
		Creds:        credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, ""),
		Secure:       secure,
		Region:       cfg.Region,
		BucketLookup: minio.BucketLookupPath,
	})
	if err != nil {
		return nil, fmt.Errorf("s3: FORMD_S3_ENDPOINT: %v", err)
	}
	return &Store{client: client, bucket: cfg.Bucket, prefix: cfg.Prefix, endpoint: host}, nil
}

// parseEndpoint reads FORMD_S3_ENDPOINT: http:// or https:// URL with no
// path, or a bare host:port (https). Its errors do not repeat the value, in
// case someone put credentials in it.
func parseEndpoint(raw string) (host string, secure bool, err error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", false, errors.New("FORMD_S3_ENDPOINT is empty: give the S3 endpoint, such as https://s3.eu-west-1.amazonaws.com or http://127.0.0.1:9000")
	}
	if !strings.Contains(raw, "://") {
		raw = "https://" + raw
	}
	u, perr := url.Parse(raw)
	switch {
	case perr != nil || u.Host == "" || u.Hostname() == "":
		return "", false, errors.New("FORMD_S3_ENDPOINT must be a URL such as https://s3.eu-west-1.amazonaws.com, or host:port")
	case u.Scheme != "http" && u.Scheme != "https":
		return "", false, errors.New("FORMD_S3_ENDPOINT must start with http:// or https://")
	case u.User != nil:
		return "", false, errors.New("FORMD_S3_ENDPOINT must not hold credentials: use FORMD_S3_ACCESS_KEY and FORMD_S3_SECRET_KEY")
	case strings.Trim(u.Path, "/") != "" || u.RawQuery != "" || u.Fragment != "":
		return "", false, errors.New("FORMD_S3_ENDPOINT must be the server alone, without a path: the bucket goes in FORMD_S3_BUCKET")
	}
	return u.Host, u.Scheme == "https", nil
}

// Check says whether the bucket exists and the credentials reach it: a
// start-up check, so a mistake shows before the first upload.
func (s *Store) Check(ctx context.Context) error {
	ok, err := s.client.BucketExists(ctx, s.bucket)
	if err != nil {
		return fmt.Errorf("s3: cannot reach bucket %q at %s (FORMD_S3_ENDPOINT, FORMD_S3_ACCESS_KEY, FORMD_S3_SECRET_KEY): %v", s.bucket, s.endpoint, err)
	}
	if !ok {
		return fmt.Errorf("s3: bucket %q does not exist at %s (FORMD_S3_BUCKET): create it first", s.bucket, s.endpoint)
	}
	return nil
}

// Put stores exactly size bytes of r under key; a reader that ends early or
// holds more is an error, and the upload is abandoned.
func (s *Store) Put(ctx context.Context, key string, r io.Reader, size int64, contentType string) error {
	if size < 0 {
		return fmt.Errorf("s3: put %q: negative size %d", key, size)
	}
	body := &exactReader{r: r, left: size}
	_, err := s.client.PutObject(ctx, s.bucket, s.object(key), body, size, minio.PutObjectOptions{ContentType: contentType})
	if body.err != nil {
		return fmt.Errorf("s3: put %q: %w", key, body.err)
	}
	if err != nil {
		return fmt.Errorf("s3: put %q: %v", key, err)
	}
	return nil
}

// Open reads the object under key and its size; domain.ErrNotFound when
// there is none.
func (s *Store) Open(ctx context.Context, key string) (io.ReadCloser, int64, error) {
	obj, err := s.client.GetObject(ctx, s.bucket, s.object(key), minio.GetObjectOptions{})
	if err != nil {
		return nil, 0, s.openError(key, err)
	}
	// Stat sends the GET; its answer carries the size.
	info, err := obj.Stat()
	if err != nil {
		_ = obj.Close()
		return nil, 0, s.openError(key, err)
	}
	return obj, info.Size, nil
}

func (s *Store) openError(key string, err error) error {
	if minio.ToErrorResponse(err).Code == minio.NoSuchKey {
		return fmt.Errorf("s3: object %q: %w", key, domain.ErrNotFound)
	}
	return fmt.Errorf("s3: open %q: %v", key, err)
}

// Delete removes the object under key. S3 answers a delete of a missing
// object with success; a server that says NoSuchKey is taken at its word.
func (s *Store) Delete(ctx context.Context, key string) error {
	err := s.client.RemoveObject(ctx, s.bucket, s.object(key), minio.RemoveObjectOptions{})
	if err != nil && minio.ToErrorResponse(err).Code != minio.NoSuchKey {
		return fmt.Errorf("s3: delete %q: %v", key, err)
	}
	return nil
}

// object is the name in the bucket of the object under key.
func (s *Store) object(key string) string { return s.prefix + key }

// exactReader passes on exactly left bytes of r and notes in err a reader
// that ends early or goes on. It reads one byte past the end before handing
// over the last bytes, so the upload fails before it could complete.
type exactReader struct {
	r    io.Reader
	left int64
	err  error
}

func (e *exactReader) Read(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	if e.left == 0 {
		return 0, io.EOF
	}
	if int64(len(p)) < e.left {
		n, err := e.r.Read(p)
		e.left -= int64(n)
		if err == io.EOF {
			e.err = fmt.Errorf("the object ended %d bytes short of its size", e.left)
			return n, e.err
		}
		return n, err
	}
	// The rest fits in p: read it and one byte more.
	buf := make([]byte, e.left+1)
	n, err := io.ReadFull(e.r, buf)
	switch {
	case n > int(e.left):
		e.err = errors.New("the object is longer than its size")
		return 0, e.err
	case err != nil && err != io.ErrUnexpectedEOF && err != io.EOF:
		return 0, err
	case n < int(e.left):
		e.err = fmt.Errorf("the object ended %d bytes short of its size", e.left-int64(n))
		return 0, e.err
	}
	e.left = 0
	return copy(p, buf[:n]), io.EOF
}
