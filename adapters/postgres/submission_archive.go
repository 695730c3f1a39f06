package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/submission"
)

// SubmissionArchive reads the submissions archive (application.SubmissionArchive)
// and keeps its access log (application.SubmissionAccessLog).
type SubmissionArchive struct {
	pool *pgxpool.Pool
}

// NewSubmissionArchive builds the archive's reader over the pool.
func NewSubmissionArchive(pool *pgxpool.Pool) *SubmissionArchive {
	return &SubmissionArchive{pool: pool}
}

// archiveIndex is an archived payload's value_hashes: the accepted event's
// keyed value hashes as JSON.
func archiveIndex(hashes map[string]string) string {
	b, err := json.Marshal(hashes)
	if err != nil { // a map of strings always encodes
		panic(err)
	}
	return string(b)
}

// archivedStatus is an archived submission's delivery state as a whole
// (application.ArchivedPending, ArchivedFailed, ArchivedDelivered).
const archivedStatus = `CASE WHEN p.pending > 0 THEN '` + application.ArchivedPending + `'
	WHEN EXISTS (SELECT 1 FROM deliveries d WHERE d.submission_id = p.submission_id AND d.status = '` + delivery.StateFailed + `')
	THEN '` + application.ArchivedFailed + `' ELSE '` + application.ArchivedDelivered + `' END`

// archivedColumns are an ArchivedSubmission's, from submission_payloads p
// and its submission.accepted event e (absent only if the stream was lost).
const archivedColumns = `p.submission_id::text, coalesce(e.data->>'requestId', ''), coalesce((e.data->>'formVersion')::int, 0),
	coalesce(e.data->'fieldNames', '[]'::jsonb), p.created_at, p.archived_until, ` + archivedStatus + `,
	p.key_id, p.wrapped_key, p.ciphertext`

// archivedFrom are the payloads of form $1 still in their retention.
const archivedFrom = ` FROM submission_payloads p
	LEFT JOIN events e ON e.stream_id = p.submission_id AND e.version = 1 AND e.event_type = '` + submission.AcceptedType + `'
	WHERE p.form_id = $1 AND p.archived_until > now()`

func scanArchived(row pgx.Row) (application.ArchivedSubmission, error) {
	var s application.ArchivedSubmission
	var names []byte
	err := row.Scan(&s.SubmissionID, &s.RequestID, &s.FormVersion, &names, &s.AcceptedAt, &s.Until, &s.Status,
		&s.Sealed.KeyID, &s.Sealed.WrappedKey, &s.Sealed.Ciphertext)
	if errors.Is(err, pgx.ErrNoRows) {
		return s, domain.ErrNotFound
	}
	if err != nil {
		return s, err
	}
	return s, json.Unmarshal(names, &s.FieldNames)
}

// archiveQuery is a query's WHERE conditions after archivedFrom and their
// arguments, $1 being the form id.
type archiveQuery struct {
	where strings.Builder
	args  []any
}

// arg adds an argument and returns its placeholder.
func (q *archiveQuery) arg(v any) string {
	q.args = append(q.args, v)
	return fmt.Sprintf("$%d", len(q.args))
}

// archiveFilter is the conditions of the filter on the form's archive, its
// After and Limit aside.
func archiveFilter(formID string, f application.ArchiveFilter) *archiveQuery {
	q := &archiveQuery{args: []any{formID}}
	if !f.From.IsZero() {
		fmt.Fprintf(&q.where, " AND p.created_at >= %s::timestamptz", q.arg(f.From))
	}
	if !f.To.IsZero() {
		fmt.Fprintf(&q.where, " AND p.created_at < %s::timestamptz", q.arg(f.To))
	}
	if f.Status != "" {
		fmt.Fprintf(&q.where, " AND (%s) = %s::text", archivedStatus, q.arg(f.Status))
	}
	for _, v := range f.Values {
		fmt.Fprintf(&q.where, " AND p.value_hashes->>%s::text = ANY(%s::text[])", q.arg(v.Field), q.arg(v.Hashes))
	}
	return q
}

// ArchivedPage implements application.SubmissionArchive with a keyset page
// on the submission_payloads_archive_page index (read backwards oldest
// first); a filter by value compares the payload's value_hashes, so it
// opens nothing.
func (a *SubmissionArchive) ArchivedPage(ctx context.Context, formID string, f application.ArchiveFilter) ([]application.ArchivedSubmission, error) {
	if !isUUID(formID) {
		return nil, nil
	}
	q := archiveFilter(formID, f)
	after, order := "<", "DESC"
	if f.OldestFirst {
		after, order = ">", "ASC"
	}
	if f.After != nil {
		fmt.Fprintf(&q.where, " AND (p.created_at, p.submission_id) %s (%s::timestamptz, %s::uuid)", after, q.arg(f.After.At), q.arg(f.After.ID))
	}
	rows, err := a.pool.Query(ctx, `SELECT `+archivedColumns+archivedFrom+q.where.String()+`
		ORDER BY p.created_at `+order+`, p.submission_id `+order+` LIMIT `+q.arg(f.Limit), q.args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (application.ArchivedSubmission, error) { return scanArchived(row) })
}

// ArchivedFieldNames implements application.SubmissionArchive from the
// accepted events' field names: each name's first place, oldest submission
// first, then its place in the submission. Only the names leave the
// database, however many submissions there are.
func (a *SubmissionArchive) ArchivedFieldNames(ctx context.Context, formID string, f application.ArchiveFilter) ([]string, error) {
	if !isUUID(formID) {
		return nil, nil
	}
	q := archiveFilter(formID, f)
	rows, err := a.pool.Query(ctx, `SELECT name FROM (
		SELECT DISTINCT ON (n.name) n.name, s.created_at, s.submission_id, n.place
		FROM (SELECT p.created_at, p.submission_id, coalesce(e.data->'fieldNames', '[]'::jsonb) AS names`+archivedFrom+q.where.String()+`) s
		CROSS JOIN LATERAL jsonb_array_elements_text(s.names) WITH ORDINALITY AS n(name, place)
		ORDER BY n.name, s.created_at, s.submission_id, n.place) first
		ORDER BY created_at, submission_id, place`, q.args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// ArchivedSubmission implements application.SubmissionArchive.
func (a *SubmissionArchive) ArchivedSubmission(ctx context.Context, formID, submissionID string) (application.ArchivedSubmission, error) {
	if !isUUID(formID) || !isUUID(submissionID) {
		return application.ArchivedSubmission{}, domain.ErrNotFound
	}
	return scanArchived(a.pool.QueryRow(ctx, `SELECT `+archivedColumns+archivedFrom+` AND p.submission_id = $2`, formID, submissionID))
}

// RecordAccess implements application.SubmissionAccessLog.
func (a *SubmissionArchive) RecordAccess(ctx context.Context, r application.SubmissionAccess) (int64, error) {
	var submissionID *string
	if r.SubmissionID != "" {
		submissionID = &r.SubmissionID
	}
	filters := r.Filters
	if filters == nil {
		filters = map[string]string{}
	}
	var id int64
	err := a.pool.QueryRow(ctx, `INSERT INTO submission_accesses
		(form_id, action, submission_id, filters, count, actor_type, actor_id, request_id, at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`,
		r.FormID, r.Action, submissionID, filters, r.Count, r.Actor.Type, r.Actor.ID, r.RequestID, r.At.UTC()).Scan(&id)
	return id, err
}

// CountAccess implements application.SubmissionAccessLog.
func (a *SubmissionArchive) CountAccess(ctx context.Context, id int64, count int) error {
	_, err := a.pool.Exec(ctx, `UPDATE submission_accesses SET count = $2 WHERE id = $1`, id, count)
	return err
}

// FormAccesses implements application.SubmissionAccessLog.
func (a *SubmissionArchive) FormAccesses(ctx context.Context, formID string, limit int) ([]application.SubmissionAccess, error) {
	if !isUUID(formID) {
		return nil, nil
	}
	rows, err := a.pool.Query(ctx, `SELECT form_id::text, action, coalesce(submission_id::text, ''), filters, count,
		actor_type, actor_id, request_id, at FROM submission_accesses
		WHERE form_id = $1 ORDER BY at DESC, id DESC LIMIT $2`, formID, limit)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (application.SubmissionAccess, error) {
		var r application.SubmissionAccess
		var at time.Time
		err := row.Scan(&r.FormID, &r.Action, &r.SubmissionID, &r.Filters, &r.Count, &r.Actor.Type, &r.Actor.ID, &r.RequestID, &at)
		r.At = at
		return r, err
	})
}
