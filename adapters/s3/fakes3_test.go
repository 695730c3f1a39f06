package s3_test

import (
	"net/http/httptest"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/formd/formd/adapters/s3"
)

// testBucket is the bucket every fake server starts with.
const testBucket = "formd-uploads"

// testSecret is the secret key the tests sign with, to look for in errors.
const testSecret = "s3cr3t-never-shown"

// fakeS3 starts an in-process S3 server (gofakes3, in memory) on
// 127.0.0.1 holding testBucket, and returns its URL.
//
// gofakes3 checks neither signatures nor the expiry of presigned URLs; the
// tests say what they can show instead.
func fakeS3(t *testing.T) string {
	t.Helper()
	backend := s3mem.New()
	if err := backend.CreateBucket(testBucket); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(srv.Close)
	return srv.URL
}

// newStore is a Store on the fake server's testBucket, with prefix.
func newStore(t *testing.T, endpoint, prefix string) *s3.Store {
	t.Helper()
	st, err := s3.New(s3.Config{
		Endpoint:  endpoint,
		Bucket:    testBucket,
		AccessKey: "formd",
		SecretKey: testSecret,
		Region:    "us-east-1",
		Prefix:    prefix,
	})
	if err != nil {
		t.Fatal(err)
	}
	return st
}
