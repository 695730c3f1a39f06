-- +goose Up
-- A claim returns the sealed payloads its deliveries read, so the delivery
-- pipeline's claimer makes one statement and one round trip where it made
-- two: the payload read that followed each claim was a round trip of its
-- own, and was often planned anew (see docs/performance.md).
--
-- The claim itself is formd_claim_deliveries' (00025), with the same
-- settings and for the same reasons; each claimed delivery's payload is
-- looked up through submission_payloads' primary key. That function stays
-- for a formd of an older version running beside this one.
--
-- The claim and the payload lookup must be one statement, with one
-- snapshot. Calling formd_claim_deliveries from a query that joins the
-- payloads would not do: the function's UPDATE takes a snapshot of its own,
-- later than the calling query's, so it could claim a delivery whose
-- submission committed in between and whose payload the join then did not
-- see, and the delivery would give up at once ("payload already redacted").
-- +goose StatementBegin
CREATE FUNCTION formd_claim_deliveries_with_payloads(due timestamptz, lease_until timestamptz, max_rows int, instance uuid)
RETURNS TABLE (delivery_id text, submission_id text, form_id text, verification_id text, kind text, test boolean,
               attempts int, retries int, created_at timestamptz, key_id text, wrapped_key bytea, ciphertext bytea)
LANGUAGE plpgsql
SET enable_bitmapscan = off
SET enable_seqscan = off
SET plan_cache_mode = force_generic_plan
AS $$
#variable_conflict use_column
BEGIN
	RETURN QUERY
	WITH claimed AS (
		UPDATE deliveries d SET claimed_until = lease_until, claimed_by = instance
		WHERE d.id = ANY (ARRAY(SELECT c.id FROM deliveries c
		                        WHERE c.status IN ('queued', 'retrying') AND c.next_attempt_at <= due
		                          AND (c.claimed_until IS NULL OR c.claimed_until <= due)
		                        ORDER BY c.next_attempt_at FOR UPDATE SKIP LOCKED LIMIT max_rows))
		RETURNING d.id, d.submission_id, d.form_id, d.verification_id, d.kind, d.test, d.attempts, d.retries, d.created_at)
	SELECT c.id::text, coalesce(c.submission_id::text, ''), coalesce(c.form_id::text, ''),
	       coalesce(c.verification_id::text, ''), c.kind, c.test, c.attempts, c.retries, c.created_at,
	       p.key_id, p.wrapped_key, p.ciphertext
	FROM claimed c LEFT JOIN submission_payloads p ON p.submission_id = c.submission_id;
END
$$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION formd_claim_deliveries_with_payloads(timestamptz, timestamptz, int, uuid);
