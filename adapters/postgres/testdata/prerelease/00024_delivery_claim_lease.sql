-- +goose Up
-- Two faults of the delivery claim, both visible in its query plans.
--
-- 1. Its plan followed stale statistics. When the last ANALYZE saw few due
--    deliveries, the planner chose a bitmap scan of every due delivery and a
--    sort of them all for each claim of 16: a backlog that formed after the
--    ANALYZE made every claim cost as much as the backlog, just when claims
--    had to be fast. The claim now runs in formd_claim_deliveries with bitmap
--    scans off, which leaves the ordered walk of deliveries_claimable that
--    stops after the rows it takes.
--
-- 2. It moved next_attempt_at forward by the lease. next_attempt_at is
--    indexed, so every claim was a non-HOT update: a new row version with an
--    entry in each of the table's four indexes, and a dead entry in the
--    claimable index for later claims to walk past. The lease now lives in
--    claimed_until, a column no index covers, so a claim can be a HOT update
--    (fillfactor leaves room on each page for it), and next_attempt_at stays
--    when the delivery was due.
ALTER TABLE deliveries ADD COLUMN claimed_until timestamptz;
ALTER TABLE deliveries SET (fillfactor = 85);

-- +goose StatementBegin
CREATE FUNCTION formd_claim_deliveries(due timestamptz, lease_until timestamptz, max_rows int, instance uuid)
RETURNS TABLE (delivery_id text, submission_id text, form_id text, verification_id text, kind text, test boolean,
               attempts int, retries int, created_at timestamptz)
LANGUAGE plpgsql
SET enable_bitmapscan = off
AS $$
#variable_conflict use_column
BEGIN
	RETURN QUERY
	UPDATE deliveries d SET claimed_until = lease_until, claimed_by = instance
	WHERE d.id IN (SELECT c.id FROM deliveries c
	               WHERE c.status IN ('queued', 'retrying') AND c.next_attempt_at <= due
	                 AND (c.claimed_until IS NULL OR c.claimed_until <= due)
	               ORDER BY c.next_attempt_at FOR UPDATE SKIP LOCKED LIMIT max_rows)
	RETURNING d.id::text, coalesce(d.submission_id::text, ''), coalesce(d.form_id::text, ''),
	          coalesce(d.verification_id::text, ''), d.kind, d.test, d.attempts, d.retries, d.created_at;
END
$$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION formd_claim_deliveries(timestamptz, timestamptz, int, uuid);
-- Claims in flight keep their lease the old way.
UPDATE deliveries SET next_attempt_at = claimed_until WHERE claimed_until IS NOT NULL AND status IN ('queued', 'retrying');
ALTER TABLE deliveries RESET (fillfactor);
ALTER TABLE deliveries DROP COLUMN claimed_until;
