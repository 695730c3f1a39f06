package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
)

func TestConnectionFailuresAreTheDatabasesUnavailability(t *testing.T) {
	for _, tt := range []struct {
		name string
		err  error
		want bool
	}{
		{"admin shutdown", &pgconn.PgError{Code: "57P01"}, true},
		{"crash shutdown", &pgconn.PgError{Code: "57P02"}, true},
		{"cannot connect now", &pgconn.PgError{Code: "57P03"}, true},
		{"connection failure", &pgconn.PgError{Code: "08006"}, true},
		{"closed connection", fmt.Errorf("query: %w", pgconn.ErrConnClosed), true},
		{"broken read", fmt.Errorf("read: %w", io.ErrUnexpectedEOF), true},
		{"refused", &net.OpError{Op: "dial", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}, true},
		{"reset", fmt.Errorf("write: %w", syscall.ECONNRESET), true},
		{"unique violation", &pgconn.PgError{Code: "23505"}, false},
		{"serialization failure", &pgconn.PgError{Code: "40001"}, false},
		{"no rows", pgx.ErrNoRows, false},
		{"not found", domain.ErrNotFound, false},
		{"cancelled request", context.Canceled, false},
		{"request deadline", context.DeadlineExceeded, false},
	} {
		if got := isConnectionFailure(tt.err); got != tt.want {
			t.Errorf("%s: isConnectionFailure(%v) = %v, want %v", tt.name, tt.err, got, tt.want)
		}
		if got := errors.Is(unavailable(tt.err), application.ErrUnavailable); got != tt.want {
			t.Errorf("%s: unavailable(%v) is ErrUnavailable: %v, want %v", tt.name, tt.err, got, tt.want)
		}
		if got := errors.Is(newAvailability(nil).Unavailable(tt.err), application.ErrUnavailable); got != tt.want {
			t.Errorf("%s: Availability.Unavailable(%v) is ErrUnavailable: %v, want %v", tt.name, tt.err, got, tt.want)
		}
	}
	if unavailable(nil) != nil {
		t.Error("unavailable(nil) must stay nil")
	}
}

func TestAServerThatIsNotThereIsUnavailable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close() // nobody listens there any more: the connection is refused
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err = pgx.Connect(ctx, "postgres://postgres@"+addr+"/postgres?sslmode=disable")
	if err == nil {
		t.Fatal("connected to a closed port")
	}
	if !errors.Is(unavailable(err), application.ErrUnavailable) {
		t.Errorf("a refused connection (%v) must read as the database's unavailability", err)
	}
}

func TestATerminatedBackendIsUnavailable(t *testing.T) {
	url := os.Getenv("FORMD_TEST_DATABASE_URL")
	if url == "" {
		t.Skip("FORMD_TEST_DATABASE_URL is not set")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	victim, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer victim.Close(context.Background())
	killer, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer killer.Close(context.Background())
	if _, err := killer.Exec(ctx, `SELECT pg_terminate_backend($1)`, victim.PgConn().PID()); err != nil {
		t.Fatal(err)
	}
	var one int
	err = victim.QueryRow(ctx, `SELECT 1`).Scan(&one)
	if err == nil {
		t.Fatal("a terminated backend answered")
	}
	if !errors.Is(unavailable(err), application.ErrUnavailable) {
		t.Errorf("a terminated backend's error (%v) must read as the database's unavailability", err)
	}
}

// fakeDatabase answers pings while up.
type fakeDatabase struct {
	mu    sync.Mutex
	up    bool
	dials int
}

func (f *fakeDatabase) setUp(up bool) { f.mu.Lock(); f.up = up; f.mu.Unlock() }

func (f *fakeDatabase) dial(context.Context) (probeConn, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.dials++
	if !f.up {
		return nil, syscall.ECONNREFUSED
	}
	return fakeConn{f}, nil
}

type fakeConn struct{ db *fakeDatabase }

func (c fakeConn) Ping(context.Context) error {
	c.db.mu.Lock()
	defer c.db.mu.Unlock()
	if !c.db.up {
		return pgconn.ErrConnClosed
	}
	return nil
}

func (fakeConn) Close(context.Context) error { return nil }

func TestAvailabilityFollowsTheDatabaseDownAndBackUp(t *testing.T) {
	db := &fakeDatabase{up: true}
	a := newAvailability(db.dial)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { a.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()

	eventually := func(what string, cond func() bool, within time.Duration) {
		t.Helper()
		deadline := time.Now().Add(within)
		for !cond() {
			if time.Now().After(deadline) {
				t.Fatalf("not %s within %v", what, within)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	eventually("available at start", a.Available, time.Second)
	db.setUp(false)
	a.Lost() // a request met a lost connection: the probe comes at once, not after probeWhileUp
	eventually("down after a lost connection", func() bool { return !a.Available() }, probeWhileUp/2)
	db.setUp(true)
	eventually("back once the database answers", a.Available, 3*probeWhileDown)
}

func TestOneFailedPingIsNotAnOutage(t *testing.T) {
	db := &fakeDatabase{up: true}
	a := newAvailability(db.dial)
	a.conn = fakeConn{&fakeDatabase{up: false}} // a connection the server closed while idle
	a.probe(context.Background())
	if !a.Available() {
		t.Error("a stale probe connection marked a live database down")
	}
	if db.dials != 1 {
		t.Errorf("dials = %d, want one reconnection", db.dials)
	}
}

type fixedClock struct{}

func (fixedClock) Now() time.Time { return time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC) }

// The adapter's request paths (form lookup, read model, unit of work,
// submission commit) hand a database nobody answers for back as
// application.ErrUnavailable.
func TestTheRequestPathsReportAnUnreachableDatabase(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	pool, err := pgxpool.New(ctx, "postgres://postgres@"+addr+"/postgres?sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	events := NewEventStore()
	read := NewReadModel(pool, events)
	submissions, closeSubmissions := NewSubmissionStore(pool, events, NewDeliveryStore(pool, events), slog.New(slog.DiscardHandler))
	defer closeSubmissions()
	const id = "0b5c6a51-52f4-4c07-9f1d-6c8d2b0f7e11"
	for name, call := range map[string]func() error{
		"form by access key":  func() error { _, err := NewFormCache(read).FormByAccessKey(ctx, []byte("key"), false); return err },
		"forms of an account": func() error { _, err := read.FormsByAccount(ctx, id); return err },
		"session":             func() error { _, err := read.SessionByTokenHash(ctx, []byte("token"), time.Now()); return err },
		"unit of work": func() error {
			return NewTransactor(pool, events, fixedClock{}).InTx(ctx, application.Metadata{}, func(tx application.Tx) error {
				_, err := tx.LoadForm(ctx, id)
				return err
			})
		},
		"submission commit": func() error {
			_, err := submissions.Accept(ctx, application.AcceptedSubmission{FormID: id, FormVersion: 1})
			return err
		},
	} {
		if err := call(); !errors.Is(err, application.ErrUnavailable) {
			t.Errorf("%s: %v, want application.ErrUnavailable", name, err)
		}
	}
}
