package main

import "github.com/formd/formd/adapters/auditlog"

// provideCheckpointPublisher is FORMD_AUDIT_CHECKPOINT_DIR.
func provideCheckpointPublisher(cfg Config) auditlog.DirectoryPublisher {
	return auditlog.DirectoryPublisher{Dir: cfg.AuditCheckpointDir}
}
