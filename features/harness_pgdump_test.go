package features_test

// The harness's backup side: PostgreSQL's client programs (pg_dump,
// pg_restore, psql) against the suite's server, databases restored from a
// dump, and a formd started on such a database rather than on a fresh one
// (docs/operations.md "Backup and restore").

import (
	"context"
	"net"
	"net/url"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/formd/formd/adapters/postgres/pgtest"
)

// RunPGProgram runs one of PostgreSQL's client programs (pg_dump, pg_restore,
// psql), found where StartPrivatePG finds the server's, and fails the spec
// with its output unless it succeeds. It returns what the program wrote to
// its standard output.
func RunPGProgram(program string, args ...string) []byte {
	GinkgoHelper()
	bin, err := postgresBinDir()
	Expect(err).NotTo(HaveOccurred())
	cmd := exec.Command(filepath.Join(bin, program), args...)
	cmd.Env = baseEnv()
	cmd.WaitDelay = 5 * time.Second
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	Expect(err).NotTo(HaveOccurred(), "%s %s: %s", program, strings.Join(args, " "), stderr.String())
	return out
}

// NewEmptyDatabase creates an empty database (no schema: what a restore
// starts from) on the suite's server and returns its URL. It is dropped at
// the end of the node it was created in.
func NewEmptyDatabase() string {
	GinkgoHelper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin, err := pgx.Connect(ctx, pgtest.AdminURL())
	Expect(err).NotTo(HaveOccurred(), "connect to the test PostgreSQL")
	defer admin.Close(context.Background())
	// Named as pgtest names its databases, so that the suite's connection
	// watch counts the connections to it.
	name := "formd_test_restore_" + randomHex(6)
	_, err = admin.Exec(ctx, "CREATE DATABASE "+name)
	Expect(err).NotTo(HaveOccurred(), "create %s", name)
	DeferCleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, pgtest.AdminURL())
		if err == nil {
			_, _ = c.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
			_ = c.Close(ctx)
		}
	})
	return databaseURLNamed(name)
}

// databaseURLNamed is the URL of database name on the suite's server.
func databaseURLNamed(name string) string {
	GinkgoHelper()
	u, err := url.Parse(pgtest.AdminURL())
	Expect(err).NotTo(HaveOccurred())
	u.Path = "/" + name
	return u.String()
}

// RestorePlainDump loads a plain-SQL dump (pg_dump --format=plain) into a new
// empty database with psql, stopping at the first error, and returns the
// database's URL.
func RestorePlainDump(file string) string {
	GinkgoHelper()
	databaseURL := NewEmptyDatabase()
	RunPGProgram("psql", "--no-psqlrc", "--quiet", "--set=ON_ERROR_STOP=1", "--single-transaction",
		"--dbname="+databaseURL, "--file="+file)
	return databaseURL
}

// DumpCustom backs a database up as docs/operations.md says: pg_dump's
// custom format, into file.
func DumpCustom(databaseURL, file string) {
	GinkgoHelper()
	RunPGProgram("pg_dump", "--format=custom", "--file="+file, "--dbname="+databaseURL)
}

// RestoreCustom restores a custom-format dump into a new empty database as
// docs/operations.md says, and returns the database's URL.
func RestoreCustom(file string) string {
	GinkgoHelper()
	databaseURL := NewEmptyDatabase()
	RunPGProgram("pg_restore", "--no-owner", "--exit-on-error", "--dbname="+databaseURL, file)
	return databaseURL
}

// StartFormdOn starts a formd on an existing database (one a spec restored),
// with a data directory, SMTP server and listening port of its own, as
// StartFormd configures them; its secret key is random unless extraEnv sets
// FORMD_SECRET_KEY, and its audit signing key is the suite's. It returns
// once GET /healthz answers 200; the process is stopped at the end of the
// node, and the database is the caller's to drop.
func StartFormdOn(databaseURL string, extraEnv ...string) *Formd {
	GinkgoHelper()
	Expect(formdBinary).NotTo(BeEmpty(), "the formd binary is built in SynchronizedBeforeSuite")
	return startFormdOn(databaseURL, func() { Fail("a formd started on a restored database does not own it") }, extraEnv...)
}

// StalledSMTP is an SMTP server that accepts connections and never answers,
// so that a delivery attempt to it stays in flight until Release.
type StalledSMTP struct {
	// Addr is the server's host:port.
	Addr string

	listener net.Listener
	mu       sync.Mutex
	conns    []net.Conn
}

// StartStalledSMTP starts a StalledSMTP on loopback; it is released at the
// end of the node.
func StartStalledSMTP() *StalledSMTP {
	GinkgoHelper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	s := &StalledSMTP{Addr: l.Addr().String(), listener: l}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			s.conns = append(s.conns, c)
			s.mu.Unlock()
		}
	}()
	DeferCleanup(s.Release)
	return s
}

// Connections is how many connections the server holds.
func (s *StalledSMTP) Connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

// Release closes the server and every connection it holds: the attempts
// waiting on it fail at once.
func (s *StalledSMTP) Release() {
	_ = s.listener.Close()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.conns {
		_ = c.Close()
	}
	s.conns = nil
}
