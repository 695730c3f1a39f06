package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// benchModule is the folder of the bench module's go.mod. The bench runs
// from there (make bench: cd bench && go run .); formd's module is its
// parent folder, which bench/go.mod replaces github.com/formd/formd with.
func benchModule(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("not inside the bench module: run go run . from the repository's bench folder (or make bench)")
	}
	dir := filepath.Dir(gomod)
	if _, err := os.Stat(filepath.Join(dir, "naivepeer")); err != nil {
		return "", fmt.Errorf("%s is not the bench module: run go run . from the repository's bench folder (or make bench)", gomod)
	}
	return dir, nil
}

// buildFormd builds formd's ./cmd/formd, in formd's own module, into dir and
// returns the binary's path.
func buildFormd(ctx context.Context, dir string) (string, error) {
	bench, err := benchModule(ctx)
	if err != nil {
		return "", err
	}
	return buildCommand(ctx, filepath.Dir(bench), dir, "./cmd/formd", "formd")
}

// buildNaivePeer builds the bench module's ./naivepeer into dir and returns
// the binary's path.
func buildNaivePeer(ctx context.Context, dir string) (string, error) {
	bench, err := benchModule(ctx)
	if err != nil {
		return "", err
	}
	return buildCommand(ctx, bench, dir, "./naivepeer", "naivepeer")
}

// buildRelayPeer builds the bench module's ./relaypeer into dir and returns
// the binary's path.
func buildRelayPeer(ctx context.Context, dir string) (string, error) {
	bench, err := benchModule(ctx)
	if err != nil {
		return "", err
	}
	return buildCommand(ctx, bench, dir, "./relaypeer", "relaypeer")
}

// buildCommand builds package pkg of the module in moduleDir into dir/name
// and returns the binary's path.
func buildCommand(ctx context.Context, moduleDir, dir, pkg, name string) (string, error) {
	bin := filepath.Join(dir, name)
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, pkg)
	cmd.Dir = moduleDir
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %w\n%s", pkg, err, out)
	}
	return bin, nil
}

// Formd is one formd process started by the benchmark (or the naive peer,
// which serves GET /healthz and POST /submit too).
type Formd struct {
	// URL is http://127.0.0.1:<port>.
	URL string
	// Spool is the folder formd writes its mails to.
	Spool string

	cmd     *exec.Cmd
	stderr  *tailBuffer
	exited  chan struct{}
	once    sync.Once
	client  *http.Client
	started time.Time
}

// benchAuditSigningKey signs the audit checkpoints of the formd the
// benchmark starts, which runs outside development mode as production does;
// it signs nothing but the benchmark's data.
const benchAuditSigningKey = "PRIVATE+KEY+formd-bench/audit+02ccd08c+ARGRRdzY4+LUksmsmsZTz/lc6hnT40SsQXFa0L8+oPg3"

// startFormd starts bin serving dbURL on a free loopback port, with its data
// and mail spool under dir; extraEnv ("NAME=value") is added last.
func startFormd(bin, dir, dbURL string, extraEnv ...string) (*Formd, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	var secret [32]byte
	_, _ = rand.Read(secret[:])
	spool := filepath.Join(dir, "mail")
	data := filepath.Join(dir, "data")
	if err := os.MkdirAll(data, 0o750); err != nil {
		return nil, err
	}
	env := []string{}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "FORMD_") {
			env = append(env, kv)
		}
	}
	cmd := exec.Command(bin, "serve") // not CommandContext: Stop ends it gracefully
	cmd.Env = append(env,
		"FORMD_DATABASE_URL="+dbURL,
		"FORMD_LISTEN_ADDR=127.0.0.1:"+port,
		"FORMD_DATA_DIR="+data,
		"FORMD_MAIL_SPOOL="+spool,
		"FORMD_SECRET_KEY="+hex.EncodeToString(secret[:]),
		"FORMD_AUDIT_SIGNING_KEY="+benchAuditSigningKey,
		"FORMD_LOG_LEVEL=error",
	)
	cmd.Env = append(cmd.Env, extraEnv...)
	f, err := startServer(cmd, port)
	if err != nil {
		return nil, fmt.Errorf("start formd: %w", err)
	}
	f.Spool = spool
	return f, nil
}

// startPeer starts a peer program (the naive or the relay peer) built at
// bin on a free loopback port with -listen and args, and waits until it
// answers; label names it in errors, which carry its log's tail.
func startPeer(ctx context.Context, bin, label string, args ...string) (*Formd, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	peer, err := startServer(exec.Command(bin, append([]string{"-listen", "127.0.0.1:" + port}, args...)...), port)
	if err != nil {
		return nil, fmt.Errorf("start the %s: %w", label, err)
	}
	if err := peer.WaitHealthy(ctx, 30*time.Second); err != nil {
		peer.Stop()
		return nil, fmt.Errorf("%s: %w\n%s", label, err, peer.StderrTail())
	}
	return peer, nil
}

// startServer starts cmd, which serves on 127.0.0.1:port, keeping the tail
// of its output; it ends with the benchmark.
func startServer(cmd *exec.Cmd, port string) (*Formd, error) {
	f := &Formd{
		URL:    "http://127.0.0.1:" + port,
		cmd:    cmd,
		stderr: &tailBuffer{max: 16 << 10},
		exited: make(chan struct{}),
		client: &http.Client{Timeout: 15 * time.Second, Transport: &http.Transport{Proxy: nil},
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }},
	}
	cmd.Stdout = f.stderr
	cmd.Stderr = f.stderr
	endWithParent(cmd)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	f.started = time.Now()
	go func() { _ = cmd.Wait(); close(f.exited) }()
	return f, nil
}

// Stop ends formd: SIGTERM, then SIGKILL after 10 s. It is safe to call twice.
func (f *Formd) Stop() {
	f.once.Do(func() {
		f.client.CloseIdleConnections()
		_ = f.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-f.exited:
		case <-time.After(10 * time.Second):
			_ = f.cmd.Process.Kill()
			<-f.exited
		}
	})
}

// PID is formd's process id.
func (f *Formd) PID() int { return f.cmd.Process.Pid }

// Exited reports whether formd has exited.
func (f *Formd) Exited() bool {
	select {
	case <-f.exited:
		return true
	default:
		return false
	}
}

// StderrTail is the end of formd's output (it logs errors only).
func (f *Formd) StderrTail() string { return f.stderr.String() }

// WaitHealthy waits until GET /healthz answers 200.
func (f *Formd) WaitHealthy(ctx context.Context, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		select {
		case <-f.exited:
			return fmt.Errorf("formd exited before it was healthy (%v)", f.cmd.ProcessState)
		case <-ctx.Done():
			return ctx.Err()
		default:
		}
		resp, err := f.client.Get(f.URL + "/healthz")
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("formd did not answer GET /healthz with 200 within %s (last: %v)", limit, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func freePort() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	_, port, err := net.SplitHostPort(l.Addr().String())
	return port, err
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
