package application

// Sweeps are the housekeeping commands every formd process runs on a
// schedule. Each is idempotent, so processes may run them at once.
type Sweeps struct {
	Heartbeat                      *HeartbeatHandler
	ReleaseDeadClaims              *ReleaseDeadClaimsHandler
	PruneMessages                  *PruneMessagesHandler
	ShredExpiredPayloads           *ShredExpiredPayloadsHandler
	ShredArchivedPayloads          *ShredArchivedPayloadsHandler
	ShredHeldSpam                  *ShredHeldSpamHandler
	ChainEvents                    *ChainEventsHandler
	CheckpointAudit                *CheckpointAuditHandler
	PruneIdempotencyKeys           *PruneIdempotencyKeysHandler
	PruneAutoresponderReservations *PruneAutoresponderReservationsHandler
	PruneSpentChallenges           *PruneSpentChallengesHandler
	PruneThrottles                 *PruneThrottlesHandler
	CleanUploads                   *CleanUploadsHandler
	// TestInbox's Sweep deletes test renderings past their retention.
	TestInbox *TestInbox
}
