package features_test

// Deploying formd: compose.yaml, the Dockerfile and the examples in
// docs/deploy/ cannot be run here as a self-hoster runs them (no Docker
// daemon, no systemd as PID 1, no public name for a certificate), so this
// spec, with deploy_image_test.go and deploy_proxies_test.go, checks what
// needs none of those: compose.yaml loaded as `docker compose config` loads
// it, formd's own verdict on every variable the files set, and the systemd
// unit by systemd-analyze where it is installed.

import (
	"context"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/types"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"

	"github.com/formd/formd/scripts/image/ociimage"
)

var _ = Describe("Deploy files", func() {
	It("compose.yaml loads as docker compose config loads it, from the .env file docs/deploy.md writes", func() {
		project, err := loadCompose(writeDocumentedDotEnv())
		Expect(err).NotTo(HaveOccurred())
		Expect(project.ServiceNames()).To(ConsistOf("formd", "db"), "clamd and rspamd stay commented out")

		By("running PostgreSQL 15 with a named volume and a pg_isready health check")
		db := project.Services["db"]
		Expect(db.Image).To(Equal("postgres:15"))
		Expect(db.Restart).To(Equal("unless-stopped"))
		Expect(db.HealthCheck).NotTo(BeNil())
		Expect(len(db.HealthCheck.Test)).To(BeNumerically(">=", 2))
		Expect([]string(db.HealthCheck.Test[:2])).To(Equal([]string{"CMD", "pg_isready"}))
		Expect(db.Volumes).To(ContainElement(SatisfyAll(
			HaveField("Type", "volume"), HaveField("Source", "db-data"), HaveField("Target", "/var/lib/postgresql/data"))))
		Expect(project.Volumes).To(HaveKey("db-data"))

		By("keeping formd's data folder, the image's volume, in a named volume")
		Expect(project.Services["formd"].Volumes).To(ContainElement(SatisfyAll(
			HaveField("Type", "volume"), HaveField("Source", "formd-data"),
			HaveField("Target", ociimage.DataDir))))
		Expect(project.Volumes).To(HaveKey("formd-data"))

		By("starting formd from the pinned image once PostgreSQL is healthy, on the host's loopback only")
		formd := project.Services["formd"]
		Expect(formd.Image).To(Equal("formd:v0.1.0"))
		Expect(formd.Build).NotTo(BeNil(), "the Dockerfile is the alternative to a loaded image")
		Expect(formd.Build.Context).To(Equal(repositoryRoot()))
		Expect(formd.Build.Dockerfile).To(Equal("Dockerfile"))
		Expect(formd.Restart).To(Equal("unless-stopped"))
		Expect(formd.DependsOn).To(HaveKeyWithValue("db", HaveField("Condition", "service_healthy")))
		image := readDockerfile()
		Expect(formd.Ports).To(ConsistOf(SatisfyAll(
			HaveField("Target", uint32(image.exposedPort())), HaveField("HostIP", "127.0.0.1"))))

		By("trusting X-Forwarded-For from the compose network's gateway, where the host's proxy comes from")
		Expect(formd.Environment).To(HaveKey("FORMD_TRUSTED_PROXIES"))
		network := project.Networks["default"]
		Expect(network.Ipam.Config).To(HaveLen(1), "a fixed subnet, so that its gateway is known")
		subnet, err := netip.ParsePrefix(network.Ipam.Config[0].Subnet)
		Expect(err).NotTo(HaveOccurred())
		gateway := subnet.Masked().Addr().Next()
		Expect(*formd.Environment["FORMD_TRUSTED_PROXIES"]).To(Equal(gateway.String()))

		By("giving formd longer than its shutdown timeout to drain before it is killed")
		Expect(formd.StopGracePeriod).NotTo(BeNil())
		Expect(time.Duration(*formd.StopGracePeriod)).To(BeNumerically(">", documentedShutdownTimeout()))

		By("having formd itself accept the container's environment: the image's and compose.yaml's")
		env := append(image.Env, environmentOf(formd)...)
		env = append(env, commentedComposeVariables()...)
		expectFormdAccepts("compose.yaml", env)

		By("keeping the optional services at hand, commented out")
		text := readRepositoryFile("compose.yaml")
		Expect(text).To(MatchRegexp(`(?m)^\s*#\s+image: clamav/clamav`))
		Expect(text).To(MatchRegexp(`(?m)^\s*#\s+image: rspamd/rspamd`))
	})

	DescribeTable("compose.yaml refuses to start without a key, naming it",
		func(variable string) {
			var env []string
			for _, kv := range readDotEnv(writeDocumentedDotEnv()) {
				if !strings.HasPrefix(kv, variable+"=") {
					env = append(env, kv)
				}
			}
			_, err := loadComposeWithEnv(env)
			Expect(err).To(MatchError(ContainSubstring(variable)))
		},
		Entry("the secret key", "FORMD_SECRET_KEY"),
		Entry("the audit signing key", "FORMD_AUDIT_SIGNING_KEY"),
	)

	It("has formd accept every variable the systemd unit and its env example set", func() {
		env := exampleVariables(readRepositoryFile("docs/deploy/formd.env.example"), `(?m)^#?\s*(FORMD_[A-Z0-9_]+=.*)$`)
		env = append(env, exampleVariables(readRepositoryFile("docs/deploy/formd.service"), `(?m)^Environment=(FORMD_[A-Z0-9_]+=.*)$`)...)
		Expect(env).To(ContainElement(HavePrefix("FORMD_SECRET_KEY=")))
		Expect(env).To(ContainElement(HavePrefix("FORMD_AUDIT_SIGNING_KEY=")))
		Expect(env).To(ContainElement(HavePrefix("FORMD_TRUSTED_PROXIES=")))
		expectFormdAccepts("the systemd unit and formd.env.example", env)
	})

	It("gives the systemd unit its sandbox and a stop timeout longer than formd's", func() {
		unit := readRepositoryFile("docs/deploy/formd.service")
		for _, line := range []string{"DynamicUser=yes", "StateDirectory=formd", "ProtectSystem=strict", "ProtectHome=yes",
			"NoNewPrivileges=yes", "PrivateTmp=yes", "CapabilityBoundingSet=", "SystemCallFilter=@system-service",
			"EnvironmentFile=/etc/formd/formd.env", "Restart=on-failure", "ExecStart=/usr/local/bin/formd serve"} {
			Expect(unit).To(MatchRegexp(`(?m)^` + regexp.QuoteMeta(line) + `$`))
		}
		Expect(unit).To(MatchRegexp(`(?m)^RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX$`))
		stop := regexp.MustCompile(`(?m)^TimeoutStopSec=(\S+)$`).FindStringSubmatch(unit)
		Expect(stop).NotTo(BeNil())
		d, err := time.ParseDuration(stop[1])
		Expect(err).NotTo(HaveOccurred())
		Expect(d).To(BeNumerically(">", documentedShutdownTimeout()))
	})

	It("passes systemd-analyze verify with the unit", func() {
		tool := lookTool("systemd-analyze")
		unit := filepath.Join(GinkgoT().TempDir(), "formd.service")
		text := strings.ReplaceAll(readRepositoryFile("docs/deploy/formd.service"), "/usr/local/bin/formd", formdBinary)
		Expect(os.WriteFile(unit, []byte(text), 0o644)).To(Succeed())
		out, err := exec.Command(tool, "verify", unit).CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
		Expect(strings.TrimSpace(string(out))).To(BeEmpty(), "a warning is a misspelt or unknown directive")
	})

	It("links the checklist to pages that exist", func() {
		page := "../docs/deploy/checklist.md"
		text, err := os.ReadFile(page)
		Expect(err).NotTo(HaveOccurred())
		for _, target := range relativeLinks(string(text)) {
			Expect(checkLink(page, target)).To(BeEmpty(), target)
		}
	})
})

// repositoryRoot is the checkout the suite runs in (specs run in features/).
func repositoryRoot() string {
	root, err := filepath.Abs("..")
	Expect(err).NotTo(HaveOccurred())
	return root
}

func readRepositoryFile(path string) string {
	GinkgoHelper()
	b, err := os.ReadFile(filepath.Join(repositoryRoot(), path))
	Expect(err).NotTo(HaveOccurred())
	return string(b)
}

// writeDocumentedDotEnv writes the .env file docs/deploy.md has a reader
// write, with the keys its commands would generate (the suite's audit
// signing key for the line `formd audit key generate` prints), and returns
// its path.
func writeDocumentedDotEnv() string {
	GinkgoHelper()
	block := regexp.MustCompile(`(?s)cat > \.env <<EOF\n(.*?)\n\s*EOF\n`).FindStringSubmatch(readRepositoryFile("docs/deploy.md"))
	Expect(block).NotTo(BeNil(), "docs/deploy.md writes .env with a here-document")
	var lines []string
	for _, line := range strings.Split(block[1], "\n") {
		line = strings.TrimSpace(line)
		line = strings.ReplaceAll(line, "$(openssl rand -hex 32)", randomHex(32))
		line = strings.ReplaceAll(line, "$(openssl rand -hex 16)", randomHex(16))
		line = auditKeyGenerateLine.ReplaceAllLiteralString(line, "FORMD_AUDIT_SIGNING_KEY="+testAuditSigningKey)
		Expect(line).NotTo(ContainSubstring("$("), "a command the spec does not stand in for")
		lines = append(lines, line)
	}
	path := filepath.Join(GinkgoT().TempDir(), ".env")
	Expect(os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600)).To(Succeed())
	return path
}

// auditKeyGenerateLine is the command docs/deploy.md has the image run for
// the .env file's FORMD_AUDIT_SIGNING_KEY line: the first line it prints.
var auditKeyGenerateLine = regexp.MustCompile(`\$\(docker run --rm formd:v[0-9.]+ audit key generate [^\s+]+ \| head -n 1\)`)

// loadCompose loads compose.yaml with the variables of envFile and nothing
// from the test's own environment, as `docker compose --env-file envFile
// config` does: interpolation, schema validation, normalisation.
func loadCompose(envFile string) (*types.Project, error) {
	return loadComposeOptions(cli.WithEnvFiles(envFile), cli.WithDotEnv)
}

// loadComposeWithEnv loads compose.yaml with exactly env as its variables.
func loadComposeWithEnv(env []string) (*types.Project, error) {
	return loadComposeOptions(cli.WithEnv(env))
}

func loadComposeOptions(options ...cli.ProjectOptionsFn) (*types.Project, error) {
	GinkgoHelper()
	root := repositoryRoot()
	options = append([]cli.ProjectOptionsFn{cli.WithWorkingDirectory(root)}, options...)
	opts, err := cli.NewProjectOptions([]string{filepath.Join(root, "compose.yaml")}, options...)
	Expect(err).NotTo(HaveOccurred())
	return opts.LoadProject(context.Background())
}

// readDotEnv is the KEY=value lines of an env file.
func readDotEnv(path string) []string {
	GinkgoHelper()
	b, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// environmentOf is a service's environment as KEY=value.
func environmentOf(service types.ServiceConfig) []string {
	var env []string
	for k, v := range service.Environment {
		if v != nil {
			env = append(env, k+"="+*v)
		}
	}
	return env
}

// commentedComposeVariables are the FORMD_* settings compose.yaml shows
// commented out (those that enable the optional services).
func commentedComposeVariables() []string {
	var env []string
	re := regexp.MustCompile(`(?m)^\s*#\s*(FORMD_[A-Z0-9_]+): *(\S.*)$`)
	for _, m := range re.FindAllStringSubmatch(readRepositoryFile("compose.yaml"), -1) {
		env = append(env, m[1]+"="+m[2])
	}
	return env
}

// exampleVariables are the FORMD_* assignments pattern finds in text.
func exampleVariables(text, pattern string) []string {
	var env []string
	for _, m := range regexp.MustCompile(pattern).FindAllStringSubmatch(text, -1) {
		env = append(env, m[1])
	}
	return env
}

// exampleListenAddr is where the env example has formd listen, and so where
// the proxies must forward.
func exampleListenAddr() string {
	GinkgoHelper()
	m := regexp.MustCompile(`(?m)^FORMD_LISTEN_ADDR=(\S+)$`).FindStringSubmatch(readRepositoryFile("docs/deploy/formd.env.example"))
	Expect(m).NotTo(BeNil())
	return m[1]
}

// expectFormdAccepts has the built formd judge env: it reads and checks its
// whole configuration (refusing unknown FORMD_* names and invalid values)
// before it looks at its command, so a command it does not know is refused
// only after the configuration passed.
func expectFormdAccepts(what string, env []string) {
	GinkgoHelper()
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		Expect(readRepositoryFile("docs/configuration.md")).To(ContainSubstring("`"+name+"`"),
			"%s sets %s, which docs/configuration.md does not describe", what, name)
	}
	cmd := exec.Command(formdBinary, "deploy-files-check")
	cmd.Env = append(baseEnv(), env...)
	s, err := gexec.Start(cmd, GinkgoWriter, GinkgoWriter)
	Expect(err).NotTo(HaveOccurred())
	Eventually(s).WithTimeout(20 * time.Second).Should(gexec.Exit(1))
	Expect(string(s.Err.Contents())).To(ContainSubstring(`unknown command "deploy-files-check"`),
		"formd refused the configuration of %s", what)
}

// documentedShutdownTimeout is formd's default shutdown timeout as the docs
// give it: configuration.md's row when it has one, else docs/deploy.md.
func documentedShutdownTimeout() time.Duration {
	GinkgoHelper()
	row := regexp.MustCompile("(?m)^\\| *`FORMD_SHUTDOWN_TIMEOUT` *\\| *`([^`]+)`").FindStringSubmatch(readRepositoryFile("docs/configuration.md"))
	if row != nil {
		if d, err := time.ParseDuration(row[1]); err == nil {
			return d
		}
	}
	m := regexp.MustCompile("`FORMD_SHUTDOWN_TIMEOUT` \\(default `([^`]+)`\\)").FindStringSubmatch(readRepositoryFile("docs/deploy.md"))
	Expect(m).NotTo(BeNil(), "docs/deploy.md gives the default shutdown timeout")
	d, err := time.ParseDuration(m[1])
	Expect(err).NotTo(HaveOccurred())
	return d
}

// lookTool is the path of a command-line tool, or skips the spec, saying
// which tool is missing.
func lookTool(name string) string {
	path, err := exec.LookPath(name)
	if err != nil {
		Skip(name + " is not installed here: its check of the deploy example is skipped")
	}
	return path
}
