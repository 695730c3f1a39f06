package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunRefusesIncompleteFlags(t *testing.T) {
	cases := map[string]struct {
		args []string
		want string
	}{
		"binary without a platform": {[]string{"-binary", "bin/formd"}, "PLATFORM=PATH"},
		"no created time":           {[]string{"-binary", "linux/amd64=bin/formd"}, "-created"},
		"stray argument":            {[]string{"-created", "2026-11-27T12:00:00Z", "extra"}, "unexpected arguments"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			err := run(c.args)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("run(%q) = %v, want an error saying %q", c.args, err, c.want)
			}
		})
	}
}

func TestRunBuildsFromFlags(t *testing.T) {
	dir := t.TempDir()
	binary := filepath.Join(dir, "formd")
	ca := filepath.Join(dir, "ca.crt")
	if err := os.WriteFile(binary, []byte("a binary"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ca, []byte("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "image")
	err := run([]string{"-binary", "linux/amd64=" + binary, "-version", "v0.1.0", "-revision", "abc",
		"-created", "2026-11-27T12:00:00+01:00", "-ca-certificates", ca, "-out", out})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"formd-v0.1.0-linux-amd64.tar", "oci/index.json"} {
		if _, err := os.Stat(filepath.Join(out, want)); err != nil {
			t.Errorf("no %s: %v", want, err)
		}
	}
}
