package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/formd/formd/application"
)

// A group commit whose connection breaks after its COMMIT (or its
// pipeline's Sync) may have been sent can have committed without formd
// hearing so. Answering such a submission with an error would invite a
// client to post it again, and a retry without an Idempotency-Key would
// store it twice; so the store asks the database whether it landed before
// it answers.

// defaultOutcomeBound is how long the store keeps asking whether an
// interrupted commit landed: long enough to ride out a restart, short
// enough that a request does not wait out a longer outage.
const defaultOutcomeBound = 5 * time.Second

// CommitInterruptedError is a group commit whose connection broke. When
// Unknown, the database could not be asked in time whether it landed: a
// retry with the same Idempotency-Key answers as the first post would have.
// Otherwise the database said it did not land, and a retry commits it once.
type CommitInterruptedError struct {
	Unknown bool
	Cause   error
}

// Error implements error.
func (e *CommitInterruptedError) Error() string {
	if e.Unknown {
		return fmt.Sprintf("commit interrupted and its outcome unknown: %v", e.Cause)
	}
	return fmt.Sprintf("commit interrupted before it landed: %v", e.Cause)
}

// Unwrap lets the application classify the error as a passing outage.
func (e *CommitInterruptedError) Unwrap() []error {
	return []error{application.ErrUnavailable, e.Cause}
}

// commitOn runs commit on a connection of the pool. commit returns the
// ids of the submissions it wrote once their COMMIT may have been sent,
// and nil before. When its connection breaks, commitOn tells a commit that
// did not land from one that did, which it answers as committed.
func (s *SubmissionStore) commitOn(ctx context.Context, commit func(*pgx.Conn) (landing []string, err error)) error {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		// Nothing was sent: the database is away, or every connection busy.
		return fmt.Errorf("%w: %w", application.ErrUnavailable, err)
	}
	landing, err := commit(conn.Conn())
	pg := conn.Conn().PgConn()
	backend, unknown := pg.PID(), len(landing) > 0 && outcomeUnknown(pg, err)
	if err != nil && !unknown && pg.IsClosed() {
		err = &CommitInterruptedError{Cause: err}
	}
	conn.Release()
	if !unknown {
		return err
	}
	return s.settleInterrupted(landing[0], backend, err)
}

// outcomeUnknown reports whether err, met while a commit was sent on conn,
// leaves unknown whether the server committed: only an error the server
// reported on a connection that still stands rolled the commit back.
// pgconn.SafeToRetry cannot tell: a read that fails after a COMMIT was
// sent can surface as a "conn closed" error it calls safe to retry.
func outcomeUnknown(conn *pgconn.PgConn, err error) bool {
	if err == nil {
		return false
	}
	var pgErr *pgconn.PgError
	return !errors.As(err, &pgErr) || conn.IsClosed()
}

// settleInterrupted answers a commit that was interrupted with cause on
// backend (its server process) and whose submissions include id: nil when
// it landed, else a CommitInterruptedError saying whether it did not or
// the database could not tell within the bound.
func (s *SubmissionStore) settleInterrupted(id string, backend uint32, cause error) error {
	ctx, cancel := context.WithTimeout(context.Background(), s.outcomeBound)
	defer cancel()
	wait := 20 * time.Millisecond
	for {
		landed, err := s.landed(ctx, id, backend)
		switch {
		case err == nil && landed:
			s.log.Warn("group commit interrupted after it landed", "err", cause)
			return nil
		case err == nil:
			return &CommitInterruptedError{Cause: cause}
		}
		select {
		case <-ctx.Done():
			s.log.Error("group commit interrupted; the database did not say whether it landed", "err", cause, "check", err)
			return &CommitInterruptedError{Unknown: true, Cause: cause}
		case <-time.After(wait):
			wait = min(2*wait, 500*time.Millisecond)
		}
	}
}

// landed asks on a fresh connection whether the submission id committed,
// once backend has finished with what it was sent: a server process that
// is still working on the pipeline or committing could commit after the
// answer. A backend that is gone, or idle, is done.
func (s *SubmissionStore) landed(ctx context.Context, id string, backend uint32) (bool, error) {
	conn, err := pgx.ConnectConfig(ctx, s.pool.Config().ConnConfig)
	if err != nil {
		return false, err
	}
	defer conn.Close(context.Background())
	var busy bool
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
		WHERE pid = $1 AND state IS DISTINCT FROM 'idle')`, int64(backend)).Scan(&busy); err != nil {
		return false, err
	}
	if busy {
		return false, errors.New("the interrupted commit's server process is still at work")
	}
	// A statement of its own, so its snapshot is taken after the backend
	// was seen done.
	var committed bool
	err = conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM events WHERE stream_id = $1::uuid)`, id).Scan(&committed)
	return committed, err
}
