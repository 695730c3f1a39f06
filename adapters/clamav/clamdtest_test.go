package clamav_test

// The test clamd: Debian's clamav-daemon (scripts/ensure-clamd.sh installs
// it; make unit and .ci/run call that script) with a one-signature database
// made here, offline, over the EICAR test string. No signature is ever
// downloaded. A missing clamd fails the test rather than skipping it, like a
// missing PostgreSQL does: a skipped scanner test would pass a broken one.

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/formd/formd/adapters/clamav"
)

// eicar is the industry's harmless antivirus test file.
const eicar = `X5O!P%@AP[4\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*`

// streamMaxLength is the test clamd's StreamMaxLength, in bytes.
const streamMaxLength = 1 << 20

// testClamd is one running clamd and its two addresses.
type testClamd struct {
	TCP, Unix string
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

// startClamd runs a clamd for the test on a free loopback port and a unix
// socket in a temporary folder, and stops it at cleanup.
func startClamd(t *testing.T) testClamd {
	t.Helper()
	clamd, ok := findTool("clamd")
	if !ok {
		t.Fatal("clamd is not installed: run scripts/ensure-clamd.sh (Debian's clamav-daemon; no signatures are downloaded) or set FORMD_TEST_CLAMD_DIR")
	}
	dir := t.TempDir()
	writeSignatures(t, dir)
	port := freePort(t)
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
		lines = append(lines, "User root") // stay root: the temporary folder is ours
	}
	if err := os.WriteFile(conf, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(clamd, "--config-file="+conf)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatalf("start clamd: %v", err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	c := testClamd{TCP: fmt.Sprintf("tcp://127.0.0.1:%d", port), Unix: "unix://" + sock}
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case <-exited:
			log, _ := os.ReadFile(filepath.Join(dir, "clamd.log"))
			t.Fatalf("clamd exited at start:\n%s\n%s", out.String(), log)
		default:
		}
		if pingBoth(c) == nil {
			return c
		}
		if time.Now().After(deadline) {
			t.Fatalf("clamd did not answer PING within 60s: %v\n%s", pingBoth(c), out.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func pingBoth(c testClamd) error {
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
func writeSignatures(t *testing.T, dir string) {
	t.Helper()
	sample := filepath.Join(t.TempDir(), "Eicar-Test-Signature")
	if err := os.WriteFile(sample, []byte(eicar), 0o600); err != nil {
		t.Fatal(err)
	}
	var line []byte
	if sigtool, ok := findTool("sigtool"); ok {
		out, err := exec.Command(sigtool, "--md5", sample).Output()
		if err != nil {
			t.Fatalf("sigtool --md5: %v", err)
		}
		line = out
	} else {
		sum := md5.Sum([]byte(eicar))
		line = []byte(fmt.Sprintf("%s:%d:Eicar-Test-Signature\n", hex.EncodeToString(sum[:]), len(eicar)))
	}
	if err := os.WriteFile(filepath.Join(dir, "test.hdb"), line, 0o600); err != nil {
		t.Fatal(err)
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
