package features_test

// Deploying formd: the image the Dockerfile builds for those who build with
// Docker is the one docs/deploy.md describes (and `make image` builds). Our
// CI has no Docker daemon, so its final stage is read, not run.

import (
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/formd/formd/scripts/image/ociimage"
)

var _ = Describe("Deploy files: the image", func() {
	It("is what the Dockerfile builds, as docs/deploy.md describes it", func() {
		image := readDockerfile()
		documented := documentedImage()
		Expect(image.User).To(Equal(documented["user"][0]))
		Expect(image.Entrypoint).To(Equal(documented["entrypoint"][0]))
		Expect(image.Cmd).To(Equal(documented["cmd"][0]))
		Expect(image.Expose).To(ConsistOf(documented["exposed port"]))
		Expect(image.Env).To(ConsistOf(documented["environment"]))
		Expect(image.From).To(Equal("scratch"))
		Expect(image.listenPort()).To(Equal(image.exposedPort()), "FORMD_LISTEN_ADDR listens on the exposed port")
		Expect(image.Labels).To(ContainElements("org.opencontainers.image.source", "org.opencontainers.image.version",
			"org.opencontainers.image.revision", "org.opencontainers.image.licenses"))
	})

	It("is the image make image builds: the same user, start command, environment, ports, folder and stop signal", func() {
		image := readDockerfile()
		built := ociimage.ContainerConfig(ociimage.Options{})
		Expect(image.User).To(Equal(built.User))
		Expect(image.Entrypoint).To(Equal(jsonArray(built.Entrypoint)))
		Expect(image.Cmd).To(Equal(jsonArray(built.Cmd)))
		Expect(image.Env).To(ConsistOf(built.Env))
		Expect(image.Expose).To(ConsistOf(slices.Collect(maps.Keys(built.ExposedPorts))))
		Expect(image.Workdir).To(Equal(built.WorkingDir))
		Expect(image.Volume).To(Equal(jsonArray(slices.Collect(maps.Keys(built.Volumes)))))
		Expect(image.StopSignal).To(Equal(built.StopSignal))
	})

	It("builds formd static, without build paths, with the version variables the Makefile sets", func() {
		dockerfile := readRepositoryFile("Dockerfile")
		Expect(dockerfile).To(MatchRegexp(`CGO_ENABLED=0 go build -trimpath `))
		linked := regexp.MustCompile(`-X (main\.\w+)=`)
		names := func(text string) []string {
			var out []string
			for _, m := range linked.FindAllStringSubmatch(text, -1) {
				out = append(out, m[1])
			}
			return out
		}
		makefile := regexp.MustCompile(`(?m)^LDFLAGS\s*:=.*$`).FindString(readRepositoryFile("Makefile"))
		Expect(makefile).NotTo(BeEmpty())
		Expect(names(dockerfile)).To(ConsistOf(names(makefile)))
	})
})

// documentedImage is docs/deploy.md's table of the image: each row's
// backquoted values.
func documentedImage() map[string][]string {
	GinkgoHelper()
	rows := map[string][]string{}
	row := regexp.MustCompile(`(?m)^\| (user|entrypoint|cmd|exposed port|environment) \| (.+) \|$`)
	for _, m := range row.FindAllStringSubmatch(readRepositoryFile("docs/deploy.md"), -1) {
		for _, v := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(m[2], -1) {
			rows[m[1]] = append(rows[m[1]], v[1])
		}
	}
	Expect(rows).To(HaveLen(5), "docs/deploy.md's table of the image")
	return rows
}

// dockerfileStage is what the Dockerfile's final stage sets, as written.
type dockerfileStage struct {
	From, User, Entrypoint, Cmd, Workdir, Volume, StopSignal string
	Expose, Env, Labels                                      []string
}

// readDockerfile parses the final stage of the Dockerfile: instructions on
// one line each once continuations are joined; ENV and LABEL in key=value form.
func readDockerfile() dockerfileStage {
	GinkgoHelper()
	text := strings.ReplaceAll(readRepositoryFile("Dockerfile"), "\\\n", " ")
	var stage dockerfileStage
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		instruction, args, _ := strings.Cut(line, " ")
		args = strings.TrimSpace(args)
		switch strings.ToUpper(instruction) {
		case "FROM":
			stage = dockerfileStage{From: strings.Fields(args)[0]}
		case "USER":
			stage.User = args
		case "ENTRYPOINT":
			stage.Entrypoint = args
		case "CMD":
			stage.Cmd = args
		case "WORKDIR":
			stage.Workdir = args
		case "VOLUME":
			stage.Volume = args
		case "STOPSIGNAL":
			stage.StopSignal = args
		case "EXPOSE":
			stage.Expose = append(stage.Expose, strings.Fields(args)...)
		case "ENV":
			for _, kv := range strings.Fields(args) {
				Expect(kv).To(ContainSubstring("="), "ENV in key=value form")
				stage.Env = append(stage.Env, kv)
			}
		case "LABEL":
			for _, m := range regexp.MustCompile(`([a-z.]+)="[^"]*"`).FindAllStringSubmatch(args, -1) {
				stage.Labels = append(stage.Labels, m[1])
			}
		}
	}
	return stage
}

// jsonArray writes values as a Dockerfile's exec form does: ["a", "b"].
func jsonArray(values []string) string {
	GinkgoHelper()
	b, err := json.Marshal(values)
	Expect(err).NotTo(HaveOccurred())
	return strings.ReplaceAll(string(b), `","`, `", "`)
}

func (s dockerfileStage) exposedPort() int {
	GinkgoHelper()
	Expect(s.Expose).To(HaveLen(1))
	port, err := strconv.Atoi(strings.TrimSuffix(s.Expose[0], "/tcp"))
	Expect(err).NotTo(HaveOccurred())
	return port
}

func (s dockerfileStage) listenPort() int {
	GinkgoHelper()
	for _, kv := range s.Env {
		if addr, ok := strings.CutPrefix(kv, "FORMD_LISTEN_ADDR="); ok {
			port, err := strconv.Atoi(addr[strings.LastIndex(addr, ":")+1:])
			Expect(err).NotTo(HaveOccurred())
			return port
		}
	}
	Fail("the image sets no FORMD_LISTEN_ADDR")
	return 0
}
