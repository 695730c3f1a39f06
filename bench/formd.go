package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/http"
	"net/mail"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Addresses the setup uses.
const (
	benchAccountEmail = "bench@example.com"
	benchRecipient    = "inbox@example.com"
	benchOrigin       = "https://example.com"
)

// SetupTimings says how long the setup steps took, in seconds.
type SetupTimings struct {
	BuildSeconds    float64 `json:"build"`
	StartSeconds    float64 `json:"start"`
	APISetupSeconds float64 `json:"apiSetup"`
}

// moduleRoot is the folder of the main module's go.mod.
func moduleRoot(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("not inside the formd module: run go run ./bench from the repository")
	}
	return filepath.Dir(gomod), nil
}

// buildFormd builds ./cmd/formd into dir and returns the binary's path.
func buildFormd(ctx context.Context, dir string) (string, error) {
	root, err := moduleRoot(ctx)
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "formd")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/formd")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/formd: %w\n%s", err, out)
	}
	return bin, nil
}

// Formd is one formd process started by the benchmark.
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

// startFormd starts bin serving dbURL on a free loopback port, with its data
// and mail spool under dir; extraEnv ("NAME=value") is added last.
func startFormd(bin, dir, dbURL string, extraEnv ...string) (*Formd, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	var secret [32]byte
	_, _ = rand.Read(secret[:])
	f := &Formd{
		URL:    "http://127.0.0.1:" + port,
		Spool:  filepath.Join(dir, "mail"),
		stderr: &tailBuffer{max: 16 << 10},
		exited: make(chan struct{}),
		client: &http.Client{Timeout: 15 * time.Second, Transport: &http.Transport{Proxy: nil},
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }},
	}
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
	f.cmd = exec.Command(bin, "serve") // not CommandContext: Stop ends it gracefully
	f.cmd.Env = append(env,
		"FORMD_DATABASE_URL="+dbURL,
		"FORMD_LISTEN_ADDR=127.0.0.1:"+port,
		"FORMD_DATA_DIR="+data,
		"FORMD_MAIL_SPOOL="+f.Spool,
		"FORMD_SECRET_KEY="+hex.EncodeToString(secret[:]),
		"FORMD_LOG_LEVEL=error",
	)
	f.cmd.Env = append(f.cmd.Env, extraEnv...)
	f.cmd.Stdout = f.stderr
	f.cmd.Stderr = f.stderr
	endWithParent(f.cmd)
	if err := f.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start formd: %w", err)
	}
	f.started = time.Now()
	go func() { _ = f.cmd.Wait(); close(f.exited) }()
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

// Setup registers an account, verifies it, creates a form and verifies its
// recipient, all through the API and the mail spool. It returns the form's
// access key.
func (f *Formd) Setup(ctx context.Context) (string, error) {
	var auth struct {
		Credential string `json:"credential"`
	}
	if err := f.call(ctx, "POST", "/agent/auth", "", map[string]any{"email": benchAccountEmail}, http.StatusOK, &auth); err != nil {
		return "", err
	}
	if auth.Credential == "" {
		return "", errors.New("POST /agent/auth answered no credential")
	}
	if err := f.followVerification(ctx, benchAccountEmail, nil); err != nil {
		return "", fmt.Errorf("account verification: %w", err)
	}
	seen, err := f.mailsTo(benchRecipient)
	if err != nil {
		return "", err
	}
	var created struct {
		Form struct {
			AccessKey string `json:"accessKey"`
		} `json:"form"`
	}
	form := map[string]any{"name": "Bench", "recipientEmail": benchRecipient, "allowedDomains": []string{"example.com"}}
	if err := f.call(ctx, "POST", "/v1/forms", auth.Credential, form, http.StatusCreated, &created); err != nil {
		return "", err
	}
	if created.Form.AccessKey == "" {
		return "", errors.New("POST /v1/forms answered no form.accessKey")
	}
	if err := f.followVerification(ctx, benchRecipient, seen); err != nil {
		return "", fmt.Errorf("recipient verification: %w", err)
	}
	return created.Form.AccessKey, nil
}

// call sends a JSON request and decodes a JSON answer with the wanted status.
func (f *Formd) call(ctx context.Context, method, path, bearer string, body any, want int, out any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, method, f.URL+path, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	resp, err := f.client.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != want {
		return fmt.Errorf("%s %s: HTTP %d, want %d: %s", method, path, resp.StatusCode, want, raw)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("%s %s: decoding %s: %w", method, path, raw, err)
	}
	return nil
}

var verifyLinkRE = regexp.MustCompile(`http://[^\s"'<>]+/verify/[A-Za-z0-9_-]+`)

// followVerification waits (up to 15 s) for a mail to `to` that is not in
// seen and carries a verification link, and GETs the link.
func (f *Formd) followVerification(ctx context.Context, to string, seen map[string]string) error {
	deadline := time.Now().Add(15 * time.Second)
	for {
		mails, err := f.mailsTo(to)
		if err != nil {
			return err
		}
		for name, text := range mails {
			if _, old := seen[name]; old {
				continue
			}
			if link := verifyLinkRE.FindString(text); link != "" {
				return f.get(ctx, link)
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no mail with a verification link to %s in %s within 15 s", to, f.Spool)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (f *Formd) get(ctx context.Context, link string) error {
	if !strings.HasPrefix(link, f.URL+"/") {
		return fmt.Errorf("verification link %s does not point at formd (%s)", link, f.URL)
	}
	req, err := http.NewRequestWithContext(ctx, "GET", link, nil)
	if err != nil {
		return err
	}
	resp, err := f.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: HTTP %d: %s", link, resp.StatusCode, raw)
	}
	return nil
}

// mailsTo reads the spooled mails addressed to `to`: file name → decoded text.
func (f *Formd) mailsTo(to string) (map[string]string, error) {
	files, err := filepath.Glob(filepath.Join(f.Spool, "*.eml"))
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, name := range files {
		raw, err := os.ReadFile(name)
		if err != nil {
			continue // renamed or half-written: the next poll sees it
		}
		msg, err := mail.ReadMessage(bytes.NewReader(raw))
		if err != nil {
			continue
		}
		addrs, err := msg.Header.AddressList("To")
		if err != nil {
			continue
		}
		for _, a := range addrs {
			if strings.EqualFold(a.Address, to) {
				text, err := mailText(msg.Header.Get("Content-Type"), msg.Header.Get("Content-Transfer-Encoding"), msg.Body)
				if err != nil {
					return nil, fmt.Errorf("decoding %s: %w", name, err)
				}
				out[filepath.Base(name)] = text
			}
		}
	}
	return out, nil
}

// mailText decodes a MIME entity's text parts (quoted-printable or base64),
// descending into multipart ones.
func mailText(contentType, encoding string, body io.Reader) (string, error) {
	if contentType == "" {
		contentType = "text/plain"
	}
	mediaType, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		return "", err
	}
	if strings.HasPrefix(mediaType, "multipart/") {
		var sb strings.Builder
		mr := multipart.NewReader(body, params["boundary"])
		for {
			p, err := mr.NextPart()
			if err == io.EOF {
				return sb.String(), nil
			}
			if err != nil {
				return "", err
			}
			// multipart.Reader already undoes quoted-printable.
			t, err := mailText(p.Header.Get("Content-Type"), p.Header.Get("Content-Transfer-Encoding"), p)
			if err != nil {
				return "", err
			}
			sb.WriteString(t)
			sb.WriteString("\n")
		}
	}
	switch strings.ToLower(strings.TrimSpace(encoding)) {
	case "quoted-printable":
		body = quotedprintable.NewReader(body)
	case "base64":
		body = base64.NewDecoder(base64.StdEncoding, body)
	}
	b, err := io.ReadAll(body)
	if !strings.HasPrefix(mediaType, "text/") {
		return "", err
	}
	return string(b), err
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
