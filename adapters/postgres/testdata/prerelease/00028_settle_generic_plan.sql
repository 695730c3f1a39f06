-- +goose Up
-- Settling payloads (counting a record's final deliveries off their
-- submissions' payloads, and deleting the payloads nothing is pending on) is
-- planned once per connection instead of on about half of its calls.
--
-- It was a top-level statement, so the plan cache judged it: the generic
-- plan of a statement over unnest($1) cannot know how many submissions a
-- record settles, it looked costlier than a custom one, and the cache kept
-- planning anew on about half of its calls, so that planning was a large
-- share of the statement's time (see docs/performance.md). A function
-- can ask for its generic plan (plan_cache_mode); with sequential and bitmap
-- scans off, that plan reads every row by key at any table size (a generic
-- plan is made on the statistics of its first call and kept, so one made on
-- a nearly empty table would otherwise scan it as it grows, as the claim's
-- did, migration 00025).
--
-- The statement is the one an older formd sends itself (see
-- adapters/postgres/deliveries.go): a payload whose last pending deliveries
-- these are, none of them failed, is deleted (deleted true); the others are
-- counted down and say how many are still pending and whether one failed.
-- The failed check is a scalar subquery per settled row through
-- deliveries_submission, never a hashed scan of every failed delivery. A
-- formd of an older version running beside this one still sends the
-- statement itself; both write the same rows.
-- +goose StatementBegin
CREATE FUNCTION formd_settle_payloads(p_submissions uuid[], p_finals int[])
RETURNS TABLE (settled_submission text, settled_pending int, settled_failed boolean, settled_deleted boolean)
LANGUAGE plpgsql
SET enable_seqscan = off
SET enable_bitmapscan = off
SET plan_cache_mode = force_generic_plan
AS $$
BEGIN
	RETURN QUERY
	WITH f AS (SELECT * FROM unnest(p_submissions, p_finals) AS f(id, n)),
	shredded AS (
		DELETE FROM submission_payloads p USING f
		WHERE p.submission_id = f.id AND p.pending <= f.n
		  AND NOT coalesce((SELECT true FROM deliveries d WHERE d.submission_id = p.submission_id AND d.status = 'failed' LIMIT 1), false)
		RETURNING p.submission_id),
	counted AS (
		UPDATE submission_payloads p SET pending = greatest(p.pending - f.n, 0)
		FROM f WHERE p.submission_id = f.id AND p.submission_id NOT IN (SELECT s.submission_id FROM shredded s)
		RETURNING p.submission_id, p.pending,
		          coalesce((SELECT true FROM deliveries d WHERE d.submission_id = p.submission_id AND d.status = 'failed' LIMIT 1), false) AS failed)
	SELECT s.submission_id::text, 0, false, true FROM shredded s
	UNION ALL
	SELECT c.submission_id::text, c.pending, c.failed, false FROM counted c;
END
$$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION formd_settle_payloads(uuid[], int[]);
