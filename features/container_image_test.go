package features_test

// The container image (docs/releases.md): built without Docker from the
// suite's own static binary, read back as a registry or `docker load` would,
// and run from nothing but its layers, as its non-root user in a chroot.

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"

	"github.com/formd/formd/adapters/postgres/pgtest"
	"github.com/formd/formd/scripts/image/ociimage"
)

// imageReadinessPath is what the spec polls until the image's formd is
// ready to take submissions: readiness, which also says the schema is current.
const imageReadinessPath = "/readyz"

var _ = Describe("The container image", func() {
	It("runs formd from its own layers as a non-root user and delivers a submission", func() {
		platform := "linux/" + runtime.GOARCH
		By("building the " + platform + " image from the suite's static binary")
		res, err := ociimage.Build(ociimage.Options{
			Binaries: []ociimage.Binary{{Platform: platform, Path: formdBinary}},
			Version:  "spec", Revision: "0123456789abcdef", Source: "https://example.com/formd",
			Licenses: "NOASSERTION", Created: time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC),
			OutDir: GinkgoT().TempDir(),
		})
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Images).To(HaveLen(1))

		By("reading the OCI layout back: one index naming the platform's image")
		img := imageFromLayout(res.Layout, platform)
		digest, err := img.Digest()
		Expect(err).NotTo(HaveOccurred())
		Expect(digest).To(Equal(res.Images[0].Digest))
		cfg, err := img.ConfigFile()
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.OS + "/" + cfg.Architecture).To(Equal(platform))
		Expect(cfg.Config.User).To(Equal("65532:65532"), "not root")
		Expect(cfg.Config.Entrypoint).To(Equal([]string{"/usr/local/bin/formd"}))
		Expect(cfg.Config.Cmd).To(Equal([]string{"serve"}))
		Expect(cfg.Config.Env).To(ContainElements("FORMD_LISTEN_ADDR=0.0.0.0:8080", "FORMD_DATA_DIR=/var/lib/formd"))
		Expect(cfg.Config.ExposedPorts).To(HaveKey("8080/tcp"))
		Expect(cfg.Config.Labels).To(And(
			HaveKeyWithValue("org.opencontainers.image.version", "spec"),
			HaveKeyWithValue("org.opencontainers.image.revision", "0123456789abcdef"),
			HaveKeyWithValue("org.opencontainers.image.source", "https://example.com/formd"),
			HaveKeyWithValue("org.opencontainers.image.licenses", "NOASSERTION"),
			HaveKeyWithValue("org.opencontainers.image.created", "2026-11-27T12:00:00Z")))

		By("loading the docker tarball back: the same config and layers")
		loaded, err := tarball.ImageFromPath(res.Images[0].Tarball, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(loaded.ConfigName()).To(Equal(must(img.ConfigName())))
		loadedManifest, err := loaded.Manifest()
		Expect(err).NotTo(HaveOccurred())
		Expect(loadedManifest.Layers).To(HaveLen(2))

		By("unpacking its layers into an empty root, with their owners and modes")
		root := filepath.Join(GinkgoT().TempDir(), "rootfs")
		headers := extractImage(img, root)
		Expect(headers).To(HaveKey("usr/local/bin/formd"))
		Expect(headers["usr/local/bin/formd"].Mode).To(Equal(int64(0o755)))
		Expect(headers["usr/local/bin/formd"].Uid).To(Equal(0), "the binary is root's: formd cannot rewrite itself")
		Expect(headers["var/lib/formd"]).To(HaveField("Uid", 65532))
		Expect(headers["var/lib/formd"]).To(HaveField("Mode", int64(0o750)))
		Expect(headers["tmp"]).To(HaveField("Mode", int64(0o1777)))
		Expect(headers).To(HaveKey("etc/ssl/certs/ca-certificates.crt"))
		Expect(os.ReadFile(filepath.Join(root, "etc/passwd"))).To(ContainSubstring("formd:x:65532:65532:"))

		if canChroot() {
			By("running the image's entrypoint in a chroot of that root, as uid 65532, until it is ready")
		} else {
			By("running the image's entrypoint by its path in that root (chroot needs root), until it is ready")
		}
		f := startImageFormd(root, cfg.Config)

		By("submitting to a live form through it and seeing the notification arrive")
		lf := f.LiveForm(nil)
		r := f.Post("", "/submit/"+lf.AccessKey, map[string]any{"name": "Ada", "message": "Hello from the image"}, fromExampleCom())
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(f.Mail.WaitForMail(lf.Recipient).Text).To(ContainSubstring("Hello from the image"))
		Expect(f.Session.ExitCode()).To(Equal(-1), "formd still runs")

		if canChroot() {
			By("running `formd grant` in the image, as `docker exec` would: the audit trail names the image's user")
			grant, err := gexec.Start(imageCommand(root, cfg.Config, f.Env, "grant", lf.OwnerEmail, "cc_recipients"), GinkgoWriter, GinkgoWriter)
			Expect(err).NotTo(HaveOccurred())
			Eventually(grant).WithTimeout(30 * time.Second).Should(gexec.Exit(0))
			events := f.Get(lf.Token, "/v1/account/events")
			Expect(events.Status).To(Equal(http.StatusOK), "%s", events)
			Expect(events.Array("events")).To(ContainElement(HaveKeyWithValue("actor",
				HaveKeyWithValue("id", "formd"))), "the operator is the user of the image's /etc/passwd")
		}
	})
})

// imageFromLayout reads the layout as a registry client would: index.json
// names one index, which names the platform's image.
func imageFromLayout(dir, platform string) v1.Image {
	GinkgoHelper()
	top, err := layout.ImageIndexFromPath(dir)
	Expect(err).NotTo(HaveOccurred())
	topManifest, err := top.IndexManifest()
	Expect(err).NotTo(HaveOccurred())
	Expect(topManifest.Manifests).To(HaveLen(1))
	Expect(topManifest.Manifests[0].MediaType.IsIndex()).To(BeTrue())
	index, err := top.ImageIndex(topManifest.Manifests[0].Digest)
	Expect(err).NotTo(HaveOccurred())
	manifest, err := index.IndexManifest()
	Expect(err).NotTo(HaveOccurred())
	Expect(manifest.Manifests).To(HaveLen(1))
	desc := manifest.Manifests[0]
	Expect(desc.Platform).NotTo(BeNil())
	Expect(desc.Platform.OS + "/" + desc.Platform.Architecture).To(Equal(platform))
	img, err := index.Image(desc.Digest)
	Expect(err).NotTo(HaveOccurred())
	return img
}

// extractImage writes the image's flattened file system into root, owners
// and modes included (the suite runs as root), and returns its tar headers
// by name (without a folder's trailing slash).
func extractImage(img v1.Image, root string) map[string]*tar.Header {
	GinkgoHelper()
	Expect(os.MkdirAll(root, 0o755)).To(Succeed())
	rc := mutate.Extract(img)
	defer rc.Close()
	headers := map[string]*tar.Header{}
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		Expect(err).NotTo(HaveOccurred())
		headers[strings.TrimSuffix(filepath.Clean(h.Name), "/")] = h // names without a folder's trailing slash
		path := filepath.Join(root, filepath.Clean("/"+h.Name))
		mode := h.FileInfo().Mode() & (fs.ModePerm | fs.ModeSticky | fs.ModeSetuid | fs.ModeSetgid)
		switch h.Typeflag {
		case tar.TypeDir:
			Expect(os.MkdirAll(path, 0o755)).To(Succeed())
		case tar.TypeReg:
			Expect(os.MkdirAll(filepath.Dir(path), 0o755)).To(Succeed())
			out, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
			Expect(err).NotTo(HaveOccurred())
			_, err = io.Copy(out, tr)
			Expect(err).NotTo(HaveOccurred())
			Expect(out.Close()).To(Succeed())
		default:
			Fail(fmt.Sprintf("unexpected entry %s of type %c", h.Name, h.Typeflag))
		}
		if canChroot() { // only root can give files away
			Expect(os.Lchown(path, h.Uid, h.Gid)).To(Succeed())
		}
		Expect(os.Chmod(path, mode)).To(Succeed())
	}
	return headers
}

// imageCommand is the image's entrypoint with args, as a container runtime
// runs it: in a chroot of root as the image's user, with the image's
// environment and env on top (by path when the suite does not run as root).
func imageCommand(root string, config v1.Config, env []string, args ...string) *exec.Cmd {
	GinkgoHelper()
	cmd := exec.Command(config.Entrypoint[0], append(config.Entrypoint[1:], args...)...)
	cmd.Env = append(append([]string{}, config.Env...), env...)
	cmd.Dir = config.WorkingDir
	if !canChroot() {
		return byPathIn(root, cmd)
	}
	var uid, gid uint32
	_, err := fmt.Sscanf(config.User, "%d:%d", &uid, &gid)
	Expect(err).NotTo(HaveOccurred(), "the image's user %q", config.User)
	cmd.SysProcAttr = &syscall.SysProcAttr{Chroot: root, Credential: &syscall.Credential{Uid: uid, Gid: gid}}
	return cmd
}

// canChroot tells whether the spec can run the image in a chroot as its
// user: only root can.
func canChroot() bool { return os.Geteuid() == 0 }

// byPathIn is cmd run from root without a chroot: its path, working folder
// and the absolute paths in its environment are moved under root.
func byPathIn(root string, cmd *exec.Cmd) *exec.Cmd {
	moved := exec.Command(filepath.Join(root, cmd.Path), cmd.Args[1:]...)
	moved.Dir = filepath.Join(root, cmd.Dir)
	for _, kv := range cmd.Env {
		name, value, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(value, "/") {
			value = filepath.Join(root, value)
		}
		moved.Env = append(moved.Env, name+"="+value)
	}
	return moved
}

// startImageFormd runs the image's entrypoint and command (imageCommand)
// with the test's database, SMTP server and loopback port. It returns once imageReadinessPath answers 200.
func startImageFormd(root string, config v1.Config) *Formd {
	GinkgoHelper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dbURL, drop, err := pgtest.NewDatabase(ctx)
	Expect(err).NotTo(HaveOccurred(), "create a test database")
	DeferCleanup(drop)
	inbox, smtpAddr := startSMTP()
	f := &Formd{DatabaseURL: dbURL, Mail: inbox, drop: drop, client: &http.Client{
		Timeout:       15 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Transport:     newContractTransport(),
	}}
	DeferCleanup(f.client.CloseIdleConnections)

	// As in StartFormd, the free port may be taken before formd binds it:
	// then it exits, and the spec tries another.
	for attempt := 1; attempt <= 3; attempt++ {
		port := freePort()
		f.URL = "http://127.0.0.1:" + port
		f.Env = []string{
			"FORMD_LISTEN_ADDR=127.0.0.1:" + port,
			"FORMD_DATABASE_URL=" + withPoolSize(dbURL, 8),
			"FORMD_SMTP_URL=smtp://" + smtpAddr + "?tls=none",
			"FORMD_MAIL_FROM=formd@test.local",
			"FORMD_SECRET_KEY=" + randomHex(32),
			"FORMD_AUDIT_SIGNING_KEY=" + testAuditSigningKey,
			"FORMD_LOG_LEVEL=warn",
		}
		session, err := gexec.Start(imageCommand(root, config, f.Env, config.Cmd...), GinkgoWriter, GinkgoWriter)
		Expect(err).NotTo(HaveOccurred(), "start the image's formd in a chroot")
		f.Session = session
		DeferCleanup(func() {
			session.Terminate()
			if !waitExit(session, 20*time.Second) {
				session.Kill()
				waitExit(session, 5*time.Second)
			}
		})
		Eventually(func(g Gomega) {
			if session.ExitCode() != -1 {
				return
			}
			resp, err := f.client.Get(f.URL + imageReadinessPath)
			g.Expect(err).NotTo(HaveOccurred())
			defer resp.Body.Close()
			g.Expect(resp.StatusCode).To(Equal(http.StatusOK))
		}).WithTimeout(60*time.Second).WithPolling(50*time.Millisecond).Should(Succeed(), "the image's formd answers GET %s", imageReadinessPath)
		if session.ExitCode() == -1 {
			ours, err := listensOn(session.Command.Process.Pid, port)
			Expect(err).NotTo(HaveOccurred())
			if ours {
				return f
			}
			session.Kill()
			waitExit(session, 5*time.Second)
		}
		fmt.Fprintf(GinkgoWriter, "the image's formd exited before it was ready on port %s; trying another port\n", port)
	}
	Fail("the image's formd never became ready (its output is above)")
	return nil
}
