package main

import (
	"log/slog"

	"github.com/formd/formd/adapters/auditlog"
)

// provideAuditSigner loads the audit signing key and logs its public key
// (never the signing key): the one auditors pin.
func provideAuditSigner(cfg Config, log *slog.Logger) (*auditlog.Signer, error) {
	s, err := auditlog.LoadSigningKey(cfg.AuditSigningKey, cfg.DataDir, cfg.Dev, log)
	if err != nil {
		return nil, err
	}
	log.Info("audit signing key", "verifierKey", s.VerifierKey())
	return s, nil
}

// provideCheckpointPublisher is FORMD_AUDIT_CHECKPOINT_DIR.
func provideCheckpointPublisher(cfg Config) auditlog.DirectoryPublisher {
	return auditlog.DirectoryPublisher{Dir: cfg.AuditCheckpointDir}
}
