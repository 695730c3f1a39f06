package ociimage

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
	"time"
)

// The image's one non-root user and its data folder.
const (
	// UID and GID are the user formd runs as (the value distroless images
	// use for "nonroot", so volume ownership carries over between them).
	UID = 65532
	GID = 65532
	// UserName is that user's name in /etc/passwd and /etc/group.
	UserName = "formd"
	// BinaryPath is where the formd binary lives in the image.
	BinaryPath = "/usr/local/bin/formd"
	// DataDir is FORMD_DATA_DIR in the image: the generated development key
	// and, without FORMD_SMTP_URL, the mail spool live there.
	DataDir = "/var/lib/formd"
	// CACertificatesPath is where Go's crypto/x509 looks first on Linux, so
	// the image needs no SSL_CERT_FILE.
	CACertificatesPath = "/etc/ssl/certs/ca-certificates.crt"
)

// file is one entry of a layer: a directory (content nil and dir set) or a
// regular file.
type file struct {
	path     string // absolute, inside the image
	mode     fs.FileMode
	uid, gid int
	dir      bool
	content  []byte
}

// layerTar is the tar stream of files, with every parent directory added
// (root-owned, 0755) and entries sorted by path, all stamped with mtime: the
// same files and time always give the same bytes, so the same digest.
func layerTar(files []file, mtime time.Time) ([]byte, error) {
	byPath := map[string]file{}
	for _, f := range files {
		for dir := path.Dir(f.path); dir != "/"; dir = path.Dir(dir) {
			if _, ok := byPath[dir]; !ok {
				byPath[dir] = file{path: dir, mode: 0o755, dir: true}
			}
		}
		byPath[f.path] = f
	}
	paths := make([]string, 0, len(byPath))
	for p := range byPath {
		paths = append(paths, p)
	}
	sort.Strings(paths)

	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, p := range paths {
		f := byPath[p]
		h := &tar.Header{
			Name:    strings.TrimPrefix(p, "/"),
			Mode:    int64(f.mode.Perm()) | int64(modeBits(f.mode)),
			Uid:     f.uid,
			Gid:     f.gid,
			ModTime: mtime.UTC().Truncate(time.Second),
		}
		if f.dir {
			h.Typeflag = tar.TypeDir
			h.Name += "/"
		} else {
			h.Typeflag = tar.TypeReg
			h.Size = int64(len(f.content))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if !f.dir {
			if _, err := tw.Write(f.content); err != nil {
				return nil, err
			}
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// modeBits are the setuid, setgid and sticky bits in tar's encoding.
func modeBits(m fs.FileMode) int64 {
	var bits int64
	if m&fs.ModeSetuid != 0 {
		bits |= 0o4000
	}
	if m&fs.ModeSetgid != 0 {
		bits |= 0o2000
	}
	if m&fs.ModeSticky != 0 {
		bits |= 0o1000
	}
	return bits
}

// systemFiles are the base layer: the user database, the CA bundle, and
// the folders formd writes to.
func systemFiles(caBundle []byte) []file {
	passwd := fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\n"+
		"%s:x:%d:%d:formd:%s:/sbin/nologin\n"+
		"nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n", UserName, UID, GID, DataDir)
	group := fmt.Sprintf("root:x:0:\n%s:x:%d:\nnogroup:x:65534:\n", UserName, GID)
	return []file{
		{path: "/etc/passwd", mode: 0o644, content: []byte(passwd)},
		{path: "/etc/group", mode: 0o644, content: []byte(group)},
		{path: CACertificatesPath, mode: 0o644, content: caBundle},
		// Uploads being received and objects being written go to the
		// system's temporary folder.
		{path: "/tmp", mode: 0o777 | fs.ModeSticky, dir: true},
		{path: DataDir, mode: 0o750, uid: UID, gid: GID, dir: true},
	}
}

// readCABundle reads the machine's CA bundle, which Debian's
// ca-certificates package generates.
func readCABundle(p string) ([]byte, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("the CA certificates %s: %w (install Debian's ca-certificates package: apt-get install ca-certificates)", p, err)
	}
	if !bytes.Contains(b, []byte("-----BEGIN CERTIFICATE-----")) {
		return nil, fmt.Errorf("the CA certificates %s hold no PEM certificate (reinstall Debian's ca-certificates package)", p)
	}
	return b, nil
}
