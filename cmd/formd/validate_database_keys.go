package main

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/formd/formd/adapters/secrets"
)

func (c *Config) checkDatabaseURL() error {
	const name = "FORMD_DATABASE_URL"
	u, err := url.Parse(c.DatabaseURL)
	// url.Parse's and pgx's errors quote the URL, password included: neither
	// is shown.
	// No host is fine: pgx then takes a Unix socket (?host=/var/run/postgresql).
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return fmt.Errorf("%s must be a URL such as postgres://user:password@host:5432/formd?sslmode=disable", name)
	}
	if _, err := pgxpool.ParseConfig(c.DatabaseURL); err != nil {
		return fmt.Errorf("%s (%s) is not a valid PostgreSQL URL: check its port and parameters", name, u.Redacted())
	}
	return nil
}

// checkKeys parses the keys with the keyring's own messages, which name the
// variable and never show a key.
func (c *Config) checkKeys() error {
	var cur secrets.Key
	if strings.TrimSpace(c.SecretKey) != "" {
		k, err := secrets.ParseKey("FORMD_SECRET_KEY", c.SecretKey)
		if err != nil {
			return err
		}
		cur = k
	}
	var olds []secrets.Key
	for i, h := range c.OldSecretKeys {
		if strings.TrimSpace(h) == "" {
			continue
		}
		k, err := secrets.ParseKey(fmt.Sprintf("FORMD_SECRET_KEYS_OLD (entry %d)", i+1), h)
		if err != nil {
			return err
		}
		olds = append(olds, k)
	}
	if cur != nil {
		_, err := secrets.NewKeyring(cur, olds...)
		return err
	}
	return nil
}
