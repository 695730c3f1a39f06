// Package ociimage assembles formd's container image without Docker: an
// empty base plus a layer of system files (users, CA certificates, the data
// and temporary folders) and a layer holding the static formd binary,
// written as an OCI image layout with one index for every platform and as
// one `docker load` tarball per platform. The same inputs always give the
// same digests.
package ociimage

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Port is the port formd listens on in the image (FORMD_LISTEN_ADDR).
const Port = "8080"

// Binary is a static formd binary built for one platform.
type Binary struct {
	// Platform is "linux/amd64" or "linux/arm64".
	Platform string
	// Path is the binary on this machine.
	Path string
}

// Options are what Build makes an image of.
type Options struct {
	// Binaries are one static formd per platform.
	Binaries []Binary
	// Version is the release ("v0.1.0") or "devel"; it tags the tarballs
	// (formd:<version>) and labels the image.
	Version string
	// Revision is the commit the binaries were built from.
	Revision string
	// Created stamps the config and every file; the commit's time makes a
	// rebuild of one commit give the same digests.
	Created time.Time
	// Source is the URL of the source repository.
	Source string
	// Licenses is the SPDX licence expression for the labels.
	Licenses string
	// CACertificates is the CA bundle copied into the image
	// (CACertificatesPath when empty).
	CACertificates string
	// OutDir receives oci/ (the layout) and the tarballs.
	OutDir string
}

// Image is one platform's image as Build wrote it.
type Image struct {
	// Platform is "linux/amd64" or "linux/arm64".
	Platform string
	// Digest is the image manifest's digest.
	Digest v1.Hash
	// Tarball is the `docker load` tarball's path.
	Tarball string
}

// Result is what Build wrote.
type Result struct {
	// Layout is the OCI image layout folder.
	Layout string
	// Index is the digest of the index of every platform's image.
	Index v1.Hash
	// Images are the platforms' images, ordered by platform.
	Images []Image
}

// Build writes the image of every binary into o.OutDir.
func Build(o Options) (Result, error) {
	if len(o.Binaries) == 0 {
		return Result{}, fmt.Errorf("no binary to make an image of")
	}
	if o.Version == "" || o.Created.IsZero() {
		return Result{}, fmt.Errorf("the version and the created time are required")
	}
	tag, err := name.NewTag("formd:" + o.Version)
	if err != nil {
		return Result{}, fmt.Errorf("version %q cannot tag an image: %w", o.Version, err)
	}
	caPath := o.CACertificates
	if caPath == "" {
		caPath = CACertificatesPath
	}
	caBundle, err := readCABundle(caPath)
	if err != nil {
		return Result{}, err
	}
	system, err := layerTar(systemFiles(caBundle), o.Created)
	if err != nil {
		return Result{}, err
	}

	binaries := append([]Binary(nil), o.Binaries...)
	sort.Slice(binaries, func(i, j int) bool { return binaries[i].Platform < binaries[j].Platform })
	if err := os.MkdirAll(o.OutDir, 0o755); err != nil {
		return Result{}, err
	}
	res := Result{Layout: filepath.Join(o.OutDir, "oci")}
	index := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, b := range binaries {
		platform, err := v1.ParsePlatform(b.Platform)
		if err != nil || platform.OS != "linux" || platform.Architecture == "" {
			return Result{}, fmt.Errorf("platform %q: want linux/<arch>", b.Platform)
		}
		img, err := platformImage(o, *platform, system, b.Path)
		if err != nil {
			return Result{}, fmt.Errorf("%s: %w", b.Platform, err)
		}
		digest, err := img.Digest()
		if err != nil {
			return Result{}, err
		}
		tarPath := filepath.Join(o.OutDir, fmt.Sprintf("formd-%s-%s-%s.tar", o.Version, platform.OS, platform.Architecture))
		if err := tarball.WriteToFile(tarPath, tag, img); err != nil {
			return Result{}, fmt.Errorf("write %s: %w", tarPath, err)
		}
		index = mutate.AppendManifests(index, mutate.IndexAddendum{Add: img,
			Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: platform.OS, Architecture: platform.Architecture}}})
		res.Images = append(res.Images, Image{Platform: b.Platform, Digest: digest, Tarball: tarPath})
	}
	if res.Index, err = index.Digest(); err != nil {
		return Result{}, err
	}
	if err := writeLayout(res.Layout, index, o.Version); err != nil {
		return Result{}, err
	}
	return res, nil
}

// writeLayout writes a fresh layout whose index.json names one entry, the
// index of every platform, so `crane push <layout> <ref>` pushes it whole.
func writeLayout(dir string, index v1.ImageIndex, version string) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return fmt.Errorf("write the layout %s: %w", dir, err)
	}
	err = p.AppendIndex(index, layout.WithAnnotations(map[string]string{
		"org.opencontainers.image.ref.name": version,
	}))
	if err != nil {
		return fmt.Errorf("write the layout %s: %w", dir, err)
	}
	return nil
}

// platformImage is the image of one platform's binary.
func platformImage(o Options, platform v1.Platform, system []byte, binaryPath string) (v1.Image, error) {
	bin, err := os.ReadFile(binaryPath)
	if err != nil {
		return nil, fmt.Errorf("the formd binary: %w", err)
	}
	binary, err := layerTar([]file{{path: BinaryPath, mode: 0o755, content: bin}}, o.Created)
	if err != nil {
		return nil, err
	}
	created := v1.Time{Time: o.Created.UTC().Truncate(time.Second)}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err = mutate.ConfigFile(img, &v1.ConfigFile{
		Architecture: platform.Architecture,
		OS:           platform.OS,
		Created:      created,
		RootFS:       v1.RootFS{Type: "layers"},
		Config:       ContainerConfig(o),
	})
	if err != nil {
		return nil, err
	}
	layers := []struct {
		content []byte
		what    string
	}{
		{system, "users, CA certificates, " + DataDir + " and /tmp"},
		{binary, "formd " + o.Version + " at " + BinaryPath},
	}
	for _, l := range layers {
		layer, err := tarball.LayerFromOpener(opener(l.content),
			tarball.WithMediaType(types.OCILayer), tarball.WithCompressedCaching)
		if err != nil {
			return nil, err
		}
		img, err = mutate.Append(img, mutate.Addendum{Layer: layer,
			History: v1.History{Created: created, CreatedBy: "scripts/image", Comment: l.what}})
		if err != nil {
			return nil, err
		}
	}
	return img, nil
}

// ContainerConfig is how a container runtime starts formd: the image's
// config, which the Dockerfile's final stage must match.
func ContainerConfig(o Options) v1.Config {
	labels := map[string]string{
		"org.opencontainers.image.title":       "formd",
		"org.opencontainers.image.description": "A self-hostable form backend: HTML forms in, email and integrations out.",
		"org.opencontainers.image.version":     o.Version,
		"org.opencontainers.image.revision":    o.Revision,
		"org.opencontainers.image.source":      o.Source,
		"org.opencontainers.image.licenses":    o.Licenses,
		"org.opencontainers.image.created":     o.Created.UTC().Format(time.RFC3339),
	}
	for k, v := range labels {
		if strings.TrimSpace(v) == "" {
			delete(labels, k)
		}
	}
	return v1.Config{
		User:       fmt.Sprintf("%d:%d", UID, GID),
		Entrypoint: []string{BinaryPath},
		Cmd:        []string{"serve"},
		Env: []string{
			"FORMD_LISTEN_ADDR=0.0.0.0:" + Port,
			"FORMD_DATA_DIR=" + DataDir,
			"FORMD_MAIL_SPOOL=" + DataDir + "/mail",
		},
		ExposedPorts: map[string]struct{}{Port + "/tcp": {}},
		Volumes:      map[string]struct{}{DataDir: {}},
		WorkingDir:   DataDir,
		Labels:       labels,
		// formd drains on SIGTERM, what container runtimes send first.
		StopSignal: "SIGTERM",
	}
}

func opener(b []byte) tarball.Opener {
	return func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
}
