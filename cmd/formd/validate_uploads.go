package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/formd/formd/adapters/clamav"
	"github.com/formd/formd/adapters/s3"
)

// checkClamdAddr checks the form of the clamd address only: clamd may start
// after formd, and a scan that cannot reach it fails closed anyway. The
// value is shown unless it holds an @ (a mistyped URL with a password).
func (c *Config) checkClamdAddr() error {
	const name = "FORMD_CLAMD_ADDR"
	if c.ClamdAddr == "" {
		return nil
	}
	if _, _, err := clamav.ParseAddr(c.ClamdAddr); err != nil {
		if strings.Contains(c.ClamdAddr, "@") {
			return fmt.Errorf("%s: %v", name, err)
		}
		return fmt.Errorf("%s: %v, not %q", name, err, c.ClamdAddr)
	}
	return nil
}

// checkUploads checks the upload lifetimes and, when an S3 endpoint is
// set, the bucket's settings (s3.New names the variable at fault and
// never shows the secret key).
func (c *Config) checkUploads() error {
	switch {
	case c.UploadReservationTTL < time.Minute || c.UploadReservationTTL > 24*time.Hour:
		return fmt.Errorf("FORMD_UPLOAD_RESERVATION_TTL must be from 1m to 24h, not %s", c.UploadReservationTTL)
	case c.UploadLinkTTL < time.Second || c.UploadLinkTTL > 7*24*time.Hour:
		return fmt.Errorf("FORMD_UPLOAD_LINK_TTL must be from 1s to 168h (a presigned S3 link lives at most 7 days), not %s", c.UploadLinkTTL)
	case c.UploadSweepInterval < time.Second:
		return fmt.Errorf("FORMD_UPLOAD_SWEEP_INTERVAL must be at least 1s, not %s", c.UploadSweepInterval)
	case c.TestInboxRetention < time.Second || c.TestInboxRetention > 24*time.Hour:
		return fmt.Errorf("FORMD_TEST_INBOX_RETENTION must be from 1s to 24h (test renderings hold raw values), not %s", c.TestInboxRetention)
	}
	if c.S3Endpoint == "" {
		if c.S3Bucket != "" || c.S3AccessKey != "" || c.S3SecretKey != "" {
			return errors.New("FORMD_S3_BUCKET and the S3 credentials are set but FORMD_S3_ENDPOINT is not: set it to use the bucket, or unset them to use the built-in store")
		}
		return nil
	}
	_, err := s3.New(c.s3Config())
	return err
}

// s3Config is the bucket of advanced uploads.
func (c *Config) s3Config() s3.Config {
	return s3.Config{Endpoint: c.S3Endpoint, Bucket: c.S3Bucket, AccessKey: c.S3AccessKey, SecretKey: c.S3SecretKey,
		Region: c.S3Region, Prefix: c.S3Prefix}
}
