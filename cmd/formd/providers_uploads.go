package main

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/formd/formd/adapters/clamav"
	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/adapters/s3"
	"github.com/formd/formd/adapters/secrets"
	"github.com/formd/formd/application"
)

// provideBucket connects to the S3-compatible bucket of advanced uploads
// when FORMD_S3_ENDPOINT is set, and checks that the bucket exists, so a
// mistake stops formd at start rather than a visitor's upload; nil when the
// built-in store is used.
func provideBucket(ctx context.Context, cfg Config) (*s3.Store, error) {
	if cfg.S3Endpoint == "" {
		return nil, nil
	}
	bucket, err := s3.New(cfg.s3Config())
	if err != nil {
		return nil, err
	}
	return bucket, bucket.Check(ctx)
}

// provideObjectStore is the bucket when there is one, the built-in store
// in PostgreSQL otherwise.
func provideObjectStore(pool *pgxpool.Pool, bucket *s3.Store) application.ObjectStore {
	if bucket != nil {
		return bucket
	}
	return postgres.NewBuiltinObjects(pool)
}

// provideObjectLinks signs the bucket's URLs, or formd's own for the
// built-in store.
func provideObjectLinks(cfg Config, keys secrets.Keyring, bucket *s3.Store) (application.ObjectLinks, error) {
	if bucket != nil {
		return bucket, nil
	}
	return secrets.NewBuiltinObjectLinks(keys, cfg.BaseURL, cfg.DownloadBaseURL)
}

// provideUploadSettings connects the malware scanner when FORMD_CLAMD_ADDR
// is set (without one, GET /upload is refused) and sets the lifetimes.
func provideUploadSettings(cfg Config) (application.UploadSettings, error) {
	settings := application.UploadSettings{ReservationTTL: cfg.UploadReservationTTL, LinkTTL: cfg.UploadLinkTTL}
	if cfg.ClamdAddr != "" {
		scanner, err := clamav.New(cfg.ClamdAddr, clamav.Options{})
		if err != nil {
			return settings, err
		}
		settings.Scanner = scanner
	}
	return settings, nil
}

// provideTestInbox keeps test renderings for FORMD_TEST_INBOX_RETENTION.
func provideTestInbox(store application.TestInboxStore, sealer application.Sealer, render *application.Renderer, clock application.Clock,
	cfg Config) *application.TestInbox {
	return application.NewTestInbox(store, sealer, render, clock, cfg.TestInboxRetention)
}
