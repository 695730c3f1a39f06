// Package clamdtest runs a real clamd for tests: Debian's clamav-daemon
// (scripts/ensure-clamd.sh installs it; make and .ci/run call that script)
// with a one-signature database made here, offline, over the EICAR test
// string. No signature is ever downloaded. Callers fail, never skip, when
// clamd is missing, as they do when PostgreSQL is: a skipped scanner test
// would pass a broken scanner.
package clamdtest

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/formd/formd/adapters/clamav"
)

// EICAR is the industry's harmless antivirus test file; the test database
// knows it as Eicar-Test-Signature.
const EICAR = `X5O!P%@AP[4\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*`

// Signature is the name clamd reports for EICAR.
const Signature = "Eicar-Test-Signature"

// Clamd is one running clamd, listening on loopback TCP and a unix socket.
type Clamd struct {
	TCP, Unix string
	cmd       *exec.Cmd
	exited    chan struct{}
}

// findTool finds a ClamAV program: FORMD_TEST_CLAMD_DIR, the PATH, or the
// sbin folders a non-root PATH lacks.
func findTool(name string) (string, bool) {
	if dir := os.Getenv("FORMD_TEST_CLAMD_DIR"); dir != "" {
		p := filepath.Join(dir, name)
		_, err := os.Stat(p)
		return p, err == nil
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, true
	}
	for _, dir := range []string{"/usr/sbin", "/usr/local/sbin", "/usr/bin"} {
		p := filepath.Join(dir, name)
		if _, err := os.Stat(p); err == nil {
			return p, true
		}
	}
	return "", false
}

// Start runs clamd with its database, configuration, socket and log in dir
// (an empty folder the caller removes), on a free loopback port, and waits
// until it answers PING on both addresses. streamMaxLength is its
// StreamMaxLength in bytes.
func Start(dir string, streamMaxLength int64) (*Clamd, error) {
	clamd, ok := findTool("clamd")
	if !ok {
		return nil, errors.New("clamd is not installed: run scripts/ensure-clamd.sh (Debian's clamav-daemon; no signatures are downloaded) or set FORMD_TEST_CLAMD_DIR")
	}
	if err := writeSignatures(dir); err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	sock := filepath.Join(dir, "clamd.sock")
	conf := filepath.Join(dir, "clamd.conf")
	lines := []string{
		"Foreground yes",
		"TCPAddr 127.0.0.1",
		fmt.Sprintf("TCPSocket %d", port),
		"LocalSocket " + sock,
		"DatabaseDirectory " + dir,
		"LogFile " + filepath.Join(dir, "clamd.log"),
		"PidFile " + filepath.Join(dir, "clamd.pid"),
		"TemporaryDirectory " + dir,
		fmt.Sprintf("StreamMaxLength %d", streamMaxLength),
		"MaxThreads 4",
	}
	if os.Geteuid() == 0 {
		lines = append(lines, "User root") // stay root: the folder is ours
	}
	if err := os.WriteFile(conf, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		return nil, err
	}
	cmd := exec.Command(clamd, "--config-file="+conf)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start clamd: %w", err)
	}
	c := &Clamd{TCP: fmt.Sprintf("tcp://127.0.0.1:%d", port), Unix: "unix://" + sock, cmd: cmd, exited: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(c.exited) }()
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case <-c.exited:
			log, _ := os.ReadFile(filepath.Join(dir, "clamd.log"))
			return nil, fmt.Errorf("clamd exited at start:\n%s\n%s", out.String(), log)
		default:
		}
		err := pingBoth(c)
		if err == nil {
			return c, nil
		}
		if time.Now().After(deadline) {
			c.Stop()
			return nil, fmt.Errorf("clamd did not answer PING within 60s: %v\n%s", err, out.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Stop kills clamd and waits for it to exit.
func (c *Clamd) Stop() {
	_ = c.cmd.Process.Kill()
	<-c.exited
}

func pingBoth(c *Clamd) error {
	for _, addr := range []string{c.TCP, c.Unix} {
		s, err := clamav.New(addr, clamav.Options{DialTimeout: time.Second, IOTimeout: time.Second})
		if err != nil {
			return err
		}
		if err := s.Ping(context.Background()); err != nil {
			return err
		}
	}
	return nil
}

// writeSignatures makes test.hdb, an MD5 signature of the EICAR file, with
// sigtool when it is there (as an operator would) or by hand (md5:size:name).
func writeSignatures(dir string) error {
	sampleDir, err := os.MkdirTemp(dir, "sample")
	if err != nil {
		return err
	}
	defer os.RemoveAll(sampleDir)
	sample := filepath.Join(sampleDir, Signature)
	if err := os.WriteFile(sample, []byte(EICAR), 0o600); err != nil {
		return err
	}
	var line []byte
	if sigtool, ok := findTool("sigtool"); ok {
		out, err := exec.Command(sigtool, "--md5", sample).Output()
		if err != nil {
			return fmt.Errorf("sigtool --md5: %w", err)
		}
		line = out
	} else {
		sum := md5.Sum([]byte(EICAR))
		line = []byte(fmt.Sprintf("%s:%d:%s\n", hex.EncodeToString(sum[:]), len(EICAR), Signature))
	}
	return os.WriteFile(filepath.Join(dir, "test.hdb"), line, 0o600)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
