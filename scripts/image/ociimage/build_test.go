package ociimage

import (
	"archive/tar"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

const testCA = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"

var commitTime = time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)

// testOptions are a build of two small stand-in binaries into a fresh folder.
func testOptions(t *testing.T) Options {
	t.Helper()
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	return Options{
		Binaries: []Binary{
			{Platform: "linux/arm64", Path: write("formd-arm64", "arm64 binary")},
			{Platform: "linux/amd64", Path: write("formd-amd64", "amd64 binary")},
		},
		Version: "v1.2.3", Revision: "abc123", Created: commitTime,
		Source: "https://example.com/formd", Licenses: "NOASSERTION",
		CACertificates: write("ca.crt", testCA),
		OutDir:         filepath.Join(dir, "out"),
	}
}

func TestBuildIsReproducible(t *testing.T) {
	o := testOptions(t)
	first, err := Build(o)
	if err != nil {
		t.Fatal(err)
	}
	o.OutDir = filepath.Join(t.TempDir(), "again")
	second, err := Build(o)
	if err != nil {
		t.Fatal(err)
	}
	if first.Index != second.Index {
		t.Errorf("the same inputs gave the indexes %s and %s", first.Index, second.Index)
	}
	for i := range first.Images {
		if first.Images[i].Digest != second.Images[i].Digest {
			t.Errorf("%s: the same inputs gave %s and %s", first.Images[i].Platform, first.Images[i].Digest, second.Images[i].Digest)
		}
	}

	o.Created = commitTime.Add(time.Second)
	later, err := Build(o)
	if err != nil {
		t.Fatal(err)
	}
	if later.Index == first.Index {
		t.Error("another commit time gave the same index")
	}
}

func TestBuildWritesOneTaggedTarballPerPlatform(t *testing.T) {
	o := testOptions(t)
	res, err := Build(o)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Images) != 2 || res.Images[0].Platform != "linux/amd64" || res.Images[1].Platform != "linux/arm64" {
		t.Fatalf("images %+v, want linux/amd64 then linux/arm64", res.Images)
	}
	for _, img := range res.Images {
		wantName := "formd-v1.2.3-" + strings.ReplaceAll(img.Platform, "/", "-") + ".tar"
		if filepath.Base(img.Tarball) != wantName {
			t.Errorf("tarball %s, want %s", img.Tarball, wantName)
		}
		m, err := tarball.LoadManifest(func() (io.ReadCloser, error) { return os.Open(img.Tarball) })
		if err != nil {
			t.Fatal(err)
		}
		if len(m) != 1 || len(m[0].RepoTags) != 1 || m[0].RepoTags[0] != "formd:v1.2.3" {
			t.Errorf("%s: docker manifest %+v, want one image tagged formd:v1.2.3", img.Tarball, m)
		}
	}
}

func TestBuildRefusesWhatCannotMakeAnImage(t *testing.T) {
	cases := map[string]struct {
		change func(*Options)
		want   string
	}{
		"no CA bundle": {func(o *Options) { o.CACertificates = filepath.Join(t.TempDir(), "missing.crt") }, "apt-get install ca-certificates"},
		"not a CA bundle": {func(o *Options) {
			o.CACertificates = o.Binaries[0].Path
		}, "no PEM certificate"},
		"another OS":      {func(o *Options) { o.Binaries[0].Platform = "darwin/arm64" }, "want linux/<arch>"},
		"no binary":       {func(o *Options) { o.Binaries = nil }, "no binary"},
		"missing binary":  {func(o *Options) { o.Binaries[0].Path = "/nonexistent/formd" }, "the formd binary"},
		"untaggable":      {func(o *Options) { o.Version = "1.0+build" }, "cannot tag"},
		"no created time": {func(o *Options) { o.Created = time.Time{} }, "created time"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			o := testOptions(t)
			c.change(&o)
			_, err := Build(o)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one saying %q", err, c.want)
			}
		})
	}
}

func TestLayerTarAddsParentsInOrderWithOneTime(t *testing.T) {
	mtime := time.Date(2026, 1, 2, 3, 4, 5, 600, time.UTC)
	b, err := layerTar(systemFiles([]byte(testCA)), mtime)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(bytes.NewReader(b))
	var names []string
	byName := map[string]*tar.Header{}
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, h.Name)
		byName[h.Name] = h
		if !h.ModTime.Equal(mtime.Truncate(time.Second)) {
			t.Errorf("%s: mtime %s, want %s", h.Name, h.ModTime, mtime.Truncate(time.Second))
		}
	}
	want := []string{"etc/", "etc/group", "etc/passwd", "etc/ssl/", "etc/ssl/certs/", "etc/ssl/certs/ca-certificates.crt",
		"tmp/", "var/", "var/lib/", "var/lib/formd/"}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Errorf("entries %v, want %v", names, want)
	}
	if h := byName["tmp/"]; h.Mode != 0o1777 {
		t.Errorf("/tmp mode %o, want 1777", h.Mode)
	}
	if h := byName["var/lib/formd/"]; h.Mode != 0o750 || h.Uid != UID || h.Gid != GID {
		t.Errorf("%s: mode %o owner %d:%d, want 750 %d:%d", DataDir, h.Mode, h.Uid, h.Gid, UID, GID)
	}
	if h := byName["etc/"]; h.Mode != 0o755 || h.Uid != 0 {
		t.Errorf("/etc: mode %o owner %d, want 755 root", h.Mode, h.Uid)
	}
}
