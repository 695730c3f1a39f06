-- +goose Up
-- A claim returns the sealed payloads its deliveries read, so the delivery
-- pipeline's claimer makes one statement and one round trip where it made
-- two: the payload read that followed each claim was a tenth of the
-- PostgreSQL statement time in the bench's open loop (170-270 µs a call, and
-- re-planned on a fifth to a third of its calls).
--
-- The claim is formd_claim_deliveries (00025), called as it is, so there is
-- one claim for this formd and for an older one running beside it; each
-- claimed delivery's payload is looked up through submission_payloads'
-- primary key, planned once per connection for the reasons 00025 gives. The
-- planner takes a function to return 1,000 rows unless told, and would then
-- hash the whole payloads table for a claim of a few: a claim returns at
-- most its max_rows, 64 with formd's default 4 delivery workers (16 each).
ALTER FUNCTION formd_claim_deliveries(timestamptz, timestamptz, int, uuid) ROWS 64;
-- +goose StatementBegin
CREATE FUNCTION formd_claim_deliveries_with_payloads(due timestamptz, lease_until timestamptz, max_rows int, instance uuid)
RETURNS TABLE (delivery_id text, submission_id text, form_id text, verification_id text, kind text, test boolean,
               attempts int, retries int, created_at timestamptz, key_id text, wrapped_key bytea, ciphertext bytea)
LANGUAGE plpgsql
SET enable_seqscan = off
SET plan_cache_mode = force_generic_plan
AS $$
#variable_conflict use_column
BEGIN
	RETURN QUERY
	SELECT c.*, p.key_id, p.wrapped_key, p.ciphertext
	FROM formd_claim_deliveries(due, lease_until, max_rows, instance) AS c
	LEFT JOIN submission_payloads p ON p.submission_id = NULLIF(c.submission_id, '')::uuid;
END
$$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION formd_claim_deliveries_with_payloads(timestamptz, timestamptz, int, uuid);
ALTER FUNCTION formd_claim_deliveries(timestamptz, timestamptz, int, uuid) ROWS 1000;
