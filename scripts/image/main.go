// Command image assembles formd's container image from static formd
// binaries, without a Docker daemon or a base image (see docs/releases.md):
//
//	go run ./scripts/image -binary linux/amd64=dist/linux-amd64/formd \
//	    -binary linux/arm64=dist/linux-arm64/formd -version v0.1.0 \
//	    -revision $(git rev-parse HEAD) -created $(git show -s --format=%cI HEAD) \
//	    -source https://github.com/formd/formd -out dist/image
//
// make image runs it.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/formd/formd/scripts/image/ociimage"
)

// binaryFlags collects repeated -binary PLATFORM=PATH flags.
type binaryFlags []ociimage.Binary

func (b *binaryFlags) String() string { return fmt.Sprint(*b) }

func (b *binaryFlags) Set(v string) error {
	platform, path, ok := strings.Cut(v, "=")
	if !ok || platform == "" || path == "" {
		return fmt.Errorf("want PLATFORM=PATH, as linux/amd64=bin/formd")
	}
	*b = append(*b, ociimage.Binary{Platform: platform, Path: path})
	return nil
}

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("image", flag.ContinueOnError)
	var o ociimage.Options
	var binaries binaryFlags
	var created string
	fs.Var(&binaries, "binary", "a static formd binary, as PLATFORM=PATH (linux/amd64=…); repeat for each platform")
	fs.StringVar(&o.Version, "version", "devel", "the version: tags the tarballs formd:<version> and labels the image")
	fs.StringVar(&o.Revision, "revision", "", "the commit the binaries were built from")
	fs.StringVar(&created, "created", "", "the commit's time (RFC 3339): stamps the config and every file")
	fs.StringVar(&o.Source, "source", "", "the source repository's URL")
	fs.StringVar(&o.Licenses, "licenses", "", "the SPDX licence expression")
	fs.StringVar(&o.CACertificates, "ca-certificates", ociimage.CACertificatesPath, "the CA bundle to copy (Debian's ca-certificates package makes it)")
	fs.StringVar(&o.OutDir, "out", "dist/image", "the output folder")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	o.Binaries = binaries
	t, err := time.Parse(time.RFC3339, created)
	if err != nil {
		return fmt.Errorf("-created: want the commit's time in RFC 3339 (git show -s --format=%%cI HEAD): %w", err)
	}
	o.Created = t
	res, err := ociimage.Build(o)
	if err != nil {
		return err
	}
	fmt.Printf("%s\tindex %s\n", res.Layout, res.Index)
	for _, img := range res.Images {
		fmt.Printf("%s\t%s %s\n", img.Tarball, img.Platform, img.Digest)
	}
	return nil
}
