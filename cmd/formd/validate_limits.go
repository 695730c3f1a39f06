package main

import (
	"fmt"
	"math"
)

// maxQuota bounds a plan's monthly quota: the count is a PostgreSQL integer.
const maxQuota = 2_000_000_000

// maxDeliveryWorkers bounds FORMD_DELIVERY_WORKERS: each attempt slot keeps
// an SMTP connection open and up to 16 claimed deliveries in memory.
const maxDeliveryWorkers = 256

// maxSubmissionsInFlight bounds FORMD_SUBMIT_IN_FLIGHT: beyond it the bound
// no longer protects memory (a multipart submission may hold megabytes).
const maxSubmissionsInFlight = 100_000

// FORMD_UPLOAD_MIB_IN_FLIGHT bounds: at least one submission's files (25
// MiB, form.MaxTotalFileBytes), at most 1 TiB.
const (
	minUploadMiBInFlight = 25
	maxUploadMiBInFlight = 1 << 20
)

// FORMD_MEMORY_LIMIT_MIB bounds: below 32 MiB the collector would run
// nearly all the time; above 1 TiB is a typo.
const (
	minMemoryLimitMiB = 32
	maxMemoryLimitMiB = 1 << 20
)

func (c *Config) checkNumbers() error {
	switch {
	case math.IsNaN(c.SubmitRate) || math.IsInf(c.SubmitRate, 0) || c.SubmitRate < 0:
		return fmt.Errorf("FORMD_SUBMIT_RATE must be a number of at least 0 (0 turns the limit off), not %v", c.SubmitRate)
	case c.SubmitRate > 0 && c.SubmitBurst < 1:
		return fmt.Errorf("FORMD_SUBMIT_BURST must be at least 1 while FORMD_SUBMIT_RATE is on, not %d", c.SubmitBurst)
	case math.IsNaN(c.AuthRate) || math.IsInf(c.AuthRate, 0) || c.AuthRate < 0:
		return fmt.Errorf("FORMD_AUTH_RATE must be a number of at least 0 (0 turns the limit off), not %v", c.AuthRate)
	case math.IsNaN(c.RegisterRate) || math.IsInf(c.RegisterRate, 0) || c.RegisterRate < 0:
		return fmt.Errorf("FORMD_REGISTER_RATE must be a number of at least 0 (0 turns the limit off), not %v", c.RegisterRate)
	case math.IsNaN(c.APIWriteRate) || math.IsInf(c.APIWriteRate, 0) || c.APIWriteRate < 0:
		return fmt.Errorf("FORMD_API_WRITE_RATE must be a number of at least 0 (0 turns the limit off), not %v", c.APIWriteRate)
	case c.MemoryLimitMiB != 0 && (c.MemoryLimitMiB < minMemoryLimitMiB || c.MemoryLimitMiB > maxMemoryLimitMiB):
		return fmt.Errorf("FORMD_MEMORY_LIMIT_MIB must be 0 (off) or from %d to %d, not %d", minMemoryLimitMiB, maxMemoryLimitMiB, c.MemoryLimitMiB)
	case c.SubmissionsInFlight < 0 || c.SubmissionsInFlight > maxSubmissionsInFlight:
		return fmt.Errorf("FORMD_SUBMIT_IN_FLIGHT must be from 0 (no bound) to %d, not %d", maxSubmissionsInFlight, c.SubmissionsInFlight)
	case c.UploadMiBInFlight < minUploadMiBInFlight || c.UploadMiBInFlight > maxUploadMiBInFlight:
		return fmt.Errorf("FORMD_UPLOAD_MIB_IN_FLIGHT must be from %d (one submission's files) to %d, not %d", minUploadMiBInFlight, maxUploadMiBInFlight, c.UploadMiBInFlight)
	case c.UploadMiBInFlightPerClient < minUploadMiBInFlight || c.UploadMiBInFlightPerClient > c.UploadMiBInFlight:
		return fmt.Errorf("FORMD_UPLOAD_MIB_IN_FLIGHT_PER_CLIENT must be from %d (one submission's files) to FORMD_UPLOAD_MIB_IN_FLIGHT (%d), not %d", minUploadMiBInFlight, c.UploadMiBInFlight, c.UploadMiBInFlightPerClient)
	case c.MinBodyRate < 0:
		return fmt.Errorf("FORMD_MIN_BODY_RATE must be at least 0 bytes a second (0 turns it off), not %d", c.MinBodyRate)
	case c.DeliveryWorkers < 0 || c.DeliveryWorkers > maxDeliveryWorkers:
		return fmt.Errorf("FORMD_DELIVERY_WORKERS must be from 0 to %d, not %d", maxDeliveryWorkers, c.DeliveryWorkers)
	case c.DeliveryGiveWayAt < 0 || c.DeliveryGiveWayAt > maxSubmissionsInFlight:
		return fmt.Errorf("FORMD_DELIVERY_GIVE_WAY_AT must be from 0 (never) to %d, not %d", maxSubmissionsInFlight, c.DeliveryGiveWayAt)
	case math.IsNaN(c.FormSubmitRate) || math.IsInf(c.FormSubmitRate, 0) || c.FormSubmitRate < 0:
		return fmt.Errorf("FORMD_FORM_SUBMIT_RATE must be a number of at least 0 (0 turns the limit off), not %v", c.FormSubmitRate)
	case c.FormSubmitRate > 0 && c.FormSubmitBurst < 1:
		return fmt.Errorf("FORMD_FORM_SUBMIT_BURST must be at least 1 while FORMD_FORM_SUBMIT_RATE is on, not %d", c.FormSubmitBurst)
	}
	for _, q := range []struct {
		name  string
		quota int
	}{{"FORMD_QUOTA_FREE", c.QuotaFree}, {"FORMD_QUOTA_PRO", c.QuotaPro}, {"FORMD_QUOTA_LIFETIME", c.QuotaLifetime}} {
		if q.quota < 1 || q.quota > maxQuota {
			return fmt.Errorf("%s must be from 1 to %d submissions a month, not %d (%d means no practical limit)",
				q.name, maxQuota, q.quota, maxQuota)
		}
	}
	return nil
}

// checkRetention: how long failed deliveries' payloads are kept for a retry
// by hand (0 shreds them at once, as when every delivery is final), and how
// long unread Watermill messages are (0 prunes them on the next sweep).
func (c *Config) checkRetention() error {
	if c.FailedPayloadRetention < 0 {
		return fmt.Errorf("FORMD_FAILED_PAYLOAD_RETENTION is negative (%s): use a duration such as 168h, or 0 to shred at once", c.FailedPayloadRetention)
	}
	if c.UnreadMessageRetention < 0 {
		return fmt.Errorf("FORMD_UNREAD_MESSAGE_RETENTION is negative (%s): use a duration such as 168h, or 0 to prune unread messages at once", c.UnreadMessageRetention)
	}
	return nil
}
