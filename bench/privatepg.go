package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// account is the user a child process runs as.
type account struct{ uid, gid int }

// privatePG is a throwaway PostgreSQL cluster that preloads
// pg_stat_statements: the machine's server does not, and restarting it would
// break the tests running against it. Its durability settings are the
// defaults (fsync and synchronous_commit on), so formd and pgbench are still
// compared on the same durable server.
type privatePG struct {
	// URL is the cluster's postgres database as user postgres.
	URL string

	dir    string
	cmd    *exec.Cmd
	log    *tailBuffer
	exited chan struct{}
	once   sync.Once
}

// usePrivatePG starts the run's private cluster (-private-pg), on CPUs of
// its own with -private-pg-cpus, and points FORMD_TEST_DATABASE_URL at it:
// pgtest.NewDatabase, and so every database of the run, takes the server
// from there. The caller stops it.
func usePrivatePG(ctx context.Context, opts Options) (*privatePG, error) {
	progress("starting a private PostgreSQL cluster with pg_stat_statements")
	var split *cpuSplit
	if opts.PrivatePGCPUs > 0 {
		var err error
		if split, err = splitCPUs(opts.PrivatePGCPUs); err == nil {
			err = split.pinSelf()
		}
		if err != nil {
			return nil, fmt.Errorf("-private-pg-cpus: %w", err)
		}
		progress(fmt.Sprintf("PostgreSQL on CPUs %v; formd, the load generator, the naive peer and pgbench's client on CPUs %v",
			split.PostgresCPUs, split.RestCPUs))
	}
	pg, err := startPrivatePG(ctx, opts.PrivatePGSharedBuffers, opts.PrivatePGSettings, split)
	if err != nil {
		return nil, fmt.Errorf("private PostgreSQL: %w", err)
	}
	os.Setenv("FORMD_TEST_DATABASE_URL", pg.URL)
	return pg, nil
}

// postgresBinDir finds initdb and postgres the way scripts/ensure-postgres.sh
// does: pg_config --bindir, else the newest /usr/lib/postgresql/*/bin.
func postgresBinDir() (string, error) {
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		dir := strings.TrimSpace(string(out))
		if _, err := os.Stat(filepath.Join(dir, "initdb")); err == nil {
			return dir, nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return pgMajor(dirs[i]) < pgMajor(dirs[j]) })
	for i := len(dirs) - 1; i >= 0; i-- {
		if _, err := os.Stat(filepath.Join(dirs[i], "initdb")); err == nil {
			return dirs[i], nil
		}
	}
	return "", errors.New("no PostgreSQL server binaries (initdb): install the postgresql package")
}

// pgMajor is the major version in /usr/lib/postgresql/<major>/bin (0 if none).
func pgMajor(binDir string) int {
	var v int
	_, _ = fmt.Sscanf(filepath.Base(filepath.Dir(binDir)), "%d", &v)
	return v
}

// startPrivatePG creates a cluster in a new temporary folder and starts it on
// a free loopback port, with sharedBuffers as its shared_buffers unless
// empty and each of settings (name=value), on split's PostgreSQL CPUs
// unless split is nil; Stop stops it and removes the folder.
func startPrivatePG(ctx context.Context, sharedBuffers string, settings []string, split *cpuSplit) (*privatePG, error) {
	bin, err := postgresBinDir()
	if err != nil {
		return nil, err
	}
	acct, err := serverUser()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "formd-bench-pg-")
	if err != nil {
		return nil, err
	}
	pg := &privatePG{dir: dir, log: &tailBuffer{max: 8 << 10}, exited: make(chan struct{})}
	if acct != nil {
		// The cluster's files must belong to the user the server runs as.
		if err := os.Chown(dir, acct.uid, acct.gid); err != nil {
			pg.remove()
			return nil, err
		}
	}
	data := filepath.Join(dir, "data")
	initdb := exec.CommandContext(ctx, filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres", "-A", "trust",
		"--encoding=UTF8", "--locale=C", "--no-sync")
	runAs(initdb, acct)
	if out, err := initdb.CombinedOutput(); err != nil {
		pg.remove()
		return nil, fmt.Errorf("initdb: %w\n%s", err, lastLines(out, 5))
	}
	port, err := freePort()
	if err != nil {
		pg.remove()
		return nil, err
	}
	args := []string{"-D", data, "-p", port, "-k", dir,
		"-c", "listen_addresses=127.0.0.1",
		"-c", "shared_preload_libraries=pg_stat_statements",
		"-c", "pg_stat_statements.track=all",
		"-c", "pg_stat_statements.track_planning=on"}
	if sharedBuffers != "" {
		args = append(args, "-c", "shared_buffers="+sharedBuffers)
	}
	for _, setting := range settings {
		args = append(args, "-c", setting)
	}
	pg.cmd = exec.Command(filepath.Join(bin, "postgres"), args...)
	pg.cmd.Stdout, pg.cmd.Stderr = pg.log, pg.log
	runAs(pg.cmd, acct)
	if err := pg.cmd.Start(); err != nil {
		pg.remove()
		return nil, fmt.Errorf("start postgres: %w", err)
	}
	pin := func() error { return nil }
	if split != nil {
		// Every backend and background process is forked from the
		// postmaster, and keeps its CPUs.
		pin = func() error { return split.pinPostgres(pg.cmd.Process.Pid) }
	}
	go func() { _ = pg.cmd.Wait(); close(pg.exited) }()
	if err := pin(); err != nil {
		pg.Stop()
		return nil, err
	}
	pg.URL = "postgres://postgres@127.0.0.1:" + port + "/postgres?sslmode=disable"
	if err := pg.waitReady(ctx, 30*time.Second); err != nil {
		pg.Stop()
		return nil, err
	}
	if err := pin(); err != nil {
		pg.Stop()
		return nil, err
	}
	return pg, nil
}

// waitReady waits until the server accepts a connection.
func (pg *privatePG) waitReady(ctx context.Context, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		select {
		case <-pg.exited:
			return fmt.Errorf("the private PostgreSQL exited at start:\n%s", pg.log.String())
		case <-ctx.Done():
			return ctx.Err()
		default:
		}
		attempt, cancel := context.WithTimeout(ctx, 2*time.Second)
		conn, err := pgx.Connect(attempt, pg.URL)
		cancel()
		if err == nil {
			_ = conn.Close(context.Background())
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the private PostgreSQL did not accept connections within %s (%v):\n%s", limit, err, pg.log.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Stop shuts the server down (fast shutdown, then SIGKILL after 20 s) and
// removes its folder. It is safe to call twice.
func (pg *privatePG) Stop() {
	pg.once.Do(func() {
		if pg.cmd != nil && pg.cmd.Process != nil {
			_ = pg.cmd.Process.Signal(os.Interrupt)
			select {
			case <-pg.exited:
			case <-time.After(20 * time.Second):
				_ = pg.cmd.Process.Kill()
				<-pg.exited
			}
		}
		pg.remove()
	})
}

func (pg *privatePG) remove() { _ = os.RemoveAll(pg.dir) }
