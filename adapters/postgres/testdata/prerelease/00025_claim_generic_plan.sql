-- +goose Up
-- The claim is planned once per connection instead of on every call.
--
-- plpgsql plans formd_claim_deliveries' UPDATE through the plan cache, which
-- keeps planning it afresh for each call (a custom plan) as long as its
-- generic plan looks costlier. The generic plan of `id IN (SELECT ... LIMIT
-- max_rows)` does not know how many rows the LIMIT lets through, so it
-- joined the claimed ids to deliveries by hashing them and reading the whole
-- table: a sequential scan per claim of a table that keeps every finished
-- delivery. Custom plans avoided that at the price of planning each claim,
-- which costs as much as running an empty claim.
--
-- Written as `id = ANY (ARRAY(SELECT ...))`, the claimed ids are one value,
-- computed first, to look up through the primary key. A generic plan is made
-- once per connection, on the statistics of that moment, and kept: made
-- while the table was nearly empty (a fresh database), it read the table
-- sequentially for that lookup and went on doing so as the table grew, each
-- claim slower than the last. So the function also turns sequential scans off: the
-- claim has one good plan at every size, the ordered walk of
-- deliveries_claimable and a primary-key lookup, and the function asks for
-- it as the generic plan (plan_cache_mode). Bitmap scans stay off for the
-- reason 00024 gives.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION formd_claim_deliveries(due timestamptz, lease_until timestamptz, max_rows int, instance uuid)
RETURNS TABLE (delivery_id text, submission_id text, form_id text, verification_id text, kind text, test boolean,
               attempts int, retries int, created_at timestamptz)
LANGUAGE plpgsql
SET enable_bitmapscan = off
SET enable_seqscan = off
SET plan_cache_mode = force_generic_plan
AS $$
#variable_conflict use_column
BEGIN
	RETURN QUERY
	UPDATE deliveries d SET claimed_until = lease_until, claimed_by = instance
	WHERE d.id = ANY (ARRAY(SELECT c.id FROM deliveries c
	                        WHERE c.status IN ('queued', 'retrying') AND c.next_attempt_at <= due
	                          AND (c.claimed_until IS NULL OR c.claimed_until <= due)
	                        ORDER BY c.next_attempt_at FOR UPDATE SKIP LOCKED LIMIT max_rows))
	RETURNING d.id::text, coalesce(d.submission_id::text, ''), coalesce(d.form_id::text, ''),
	          coalesce(d.verification_id::text, ''), d.kind, d.test, d.attempts, d.retries, d.created_at;
END
$$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION formd_claim_deliveries(due timestamptz, lease_until timestamptz, max_rows int, instance uuid)
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
