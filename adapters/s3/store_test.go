package s3_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/formd/formd/adapters/s3"
	"github.com/formd/formd/domain"
)

func TestPutThenOpen(t *testing.T) {
	st := newStore(t, fakeS3(t), "uploads/")
	ctx := context.Background()
	content := bytes.Repeat([]byte("quarterly report\n"), 1000)

	if err := st.Put(ctx, "key-1", bytes.NewReader(content), int64(len(content)), "text/plain"); err != nil {
		t.Fatalf("put: %v", err)
	}
	r, size, err := st.Open(ctx, "key-1")
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	defer r.Close()
	if size != int64(len(content)) {
		t.Fatalf("size = %d, want %d", size, len(content))
	}
	got, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, content) {
		t.Fatalf("read %d bytes that differ from the %d put", len(got), len(content))
	}
}

func TestPrefixMakesTheObjectName(t *testing.T) {
	endpoint := fakeS3(t)
	ctx := context.Background()
	if err := newStore(t, endpoint, "formd/").Put(ctx, "k", strings.NewReader("x"), 1, "text/plain"); err != nil {
		t.Fatal(err)
	}
	// The same bucket seen without the prefix finds the object under formd/k.
	bare := newStore(t, endpoint, "")
	if _, _, err := bare.Open(ctx, "k"); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("open k without the prefix: %v, want not found", err)
	}
	r, size, err := bare.Open(ctx, "formd/k")
	if err != nil {
		t.Fatalf("open formd/k: %v", err)
	}
	r.Close()
	if size != 1 {
		t.Fatalf("size = %d, want 1", size)
	}
}

func TestPutRefusesAReaderOfAnotherSize(t *testing.T) {
	st := newStore(t, fakeS3(t), "")
	ctx := context.Background()
	for _, tc := range []struct {
		name, content string
		size          int64
	}{
		{"shorter", "secret-bytes", 20},
		{"longer", "secret-bytes", 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := st.Put(ctx, tc.name, strings.NewReader(tc.content), tc.size, "text/plain")
			if err == nil {
				t.Fatal("put succeeded")
			}
			t.Logf("put: %v", err)
			if strings.Contains(err.Error(), "secret") {
				t.Fatalf("the error holds the object's bytes: %v", err)
			}
			if _, _, err := st.Open(ctx, tc.name); !errors.Is(err, domain.ErrNotFound) {
				t.Fatalf("after a refused put, open: %v, want not found", err)
			}
		})
	}
}

func TestOpenMissingIsNotFound(t *testing.T) {
	st := newStore(t, fakeS3(t), "")
	_, _, err := st.Open(context.Background(), "never-uploaded")
	if !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("open: %v, want domain.ErrNotFound", err)
	}
}

func TestDeleteTwice(t *testing.T) {
	st := newStore(t, fakeS3(t), "")
	ctx := context.Background()
	if err := st.Put(ctx, "k", strings.NewReader("abc"), 3, "text/plain"); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if err := st.Delete(ctx, "k"); err != nil {
			t.Fatalf("delete %d: %v", i+1, err)
		}
	}
	if _, _, err := st.Open(ctx, "k"); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("open after delete: %v, want not found", err)
	}
}

func TestCheck(t *testing.T) {
	endpoint := fakeS3(t)
	ctx := context.Background()
	if err := newStore(t, endpoint, "").Check(ctx); err != nil {
		t.Fatalf("check of an existing bucket: %v", err)
	}

	st, err := s3.New(s3.Config{Endpoint: endpoint, Bucket: "no-such-bucket", AccessKey: "formd", SecretKey: testSecret, Region: "us-east-1"})
	if err != nil {
		t.Fatal(err)
	}
	err = st.Check(ctx)
	if err == nil {
		t.Fatal("check of a missing bucket succeeded")
	}
	t.Logf("check: %v", err)
	for _, want := range []string{"no-such-bucket", "does not exist", "FORMD_S3_BUCKET"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if strings.Contains(err.Error(), testSecret) {
		t.Fatalf("the error shows the secret key: %v", err)
	}
}

func TestCheckUnreachable(t *testing.T) {
	endpoint := fakeS3(t)
	st := newStore(t, endpoint, "")
	// A canceled context stands for a server that cannot be reached,
	// without waiting for retries.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := st.Check(ctx)
	if err == nil || !strings.Contains(err.Error(), "cannot reach bucket") {
		t.Fatalf("check: %v, want cannot reach bucket", err)
	}
	if strings.Contains(err.Error(), testSecret) {
		t.Fatalf("the error shows the secret key: %v", err)
	}
}

func TestNewRefusesABadConfig(t *testing.T) {
	good := s3.Config{Endpoint: "http://127.0.0.1:9000", Bucket: "formd-uploads", AccessKey: "formd", SecretKey: testSecret}
	for _, tc := range []struct {
		name string
		edit func(*s3.Config)
		want string
	}{
		{"no endpoint", func(c *s3.Config) { c.Endpoint = "" }, "FORMD_S3_ENDPOINT is empty"},
		{"ftp endpoint", func(c *s3.Config) { c.Endpoint = "ftp://example.com" }, "FORMD_S3_ENDPOINT must start with http:// or https://"},
		{"endpoint with a path", func(c *s3.Config) { c.Endpoint = "https://example.com/formd-uploads" }, "FORMD_S3_ENDPOINT must be the server alone"},
		{"endpoint with credentials", func(c *s3.Config) { c.Endpoint = "https://formd:" + testSecret + "@example.com" }, "FORMD_S3_ENDPOINT must not hold credentials"},
		{"no bucket", func(c *s3.Config) { c.Bucket = " " }, "FORMD_S3_BUCKET is empty"},
		{"bad bucket", func(c *s3.Config) { c.Bucket = "Formd_Uploads" }, "FORMD_S3_BUCKET \"Formd_Uploads\" is not a valid bucket name"},
		{"no access key", func(c *s3.Config) { c.AccessKey = "" }, "FORMD_S3_ACCESS_KEY is empty"},
		{"no secret key", func(c *s3.Config) { c.SecretKey = "" }, "FORMD_S3_SECRET_KEY is empty"},
		{"absolute prefix", func(c *s3.Config) { c.Prefix = "/uploads/" }, "FORMD_S3_PREFIX must not start with a slash"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := good
			tc.edit(&cfg)
			_, err := s3.New(cfg)
			if err == nil {
				t.Fatal("New accepted it")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not say %q", err, tc.want)
			}
			if strings.Contains(err.Error(), testSecret) {
				t.Fatalf("the error shows the secret key: %v", err)
			}
		})
	}

	t.Run("every problem at once", func(t *testing.T) {
		_, err := s3.New(s3.Config{})
		if err == nil {
			t.Fatal("New accepted an empty config")
		}
		for _, name := range []string{"FORMD_S3_ENDPOINT", "FORMD_S3_BUCKET", "FORMD_S3_ACCESS_KEY", "FORMD_S3_SECRET_KEY"} {
			if !strings.Contains(err.Error(), name) {
				t.Errorf("error %q does not name %s", err, name)
			}
		}
	})

	t.Run("good endpoints", func(t *testing.T) {
		for _, endpoint := range []string{"https://s3.eu-west-1.amazonaws.com", "http://127.0.0.1:9000", "minio.internal:9000", "https://r2.example.com/"} {
			cfg := good
			cfg.Endpoint = endpoint
			if _, err := s3.New(cfg); err != nil {
				t.Errorf("%s: %v", endpoint, err)
			}
		}
	})
}
