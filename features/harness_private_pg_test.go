package features_test

// The harness's private PostgreSQL: a cluster of a spec's own, so that the
// spec can crash and restart the server without disturbing the specs of the
// other processes, which share the suite's server.

import (
	"errors"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// PrivatePG is a throwaway PostgreSQL cluster in a temporary folder, listening
// on a free loopback port with trust authentication. It is stopped and its
// folder removed at the end of the node that started it.
type PrivatePG struct {
	// Port is the loopback port the server listens on.
	Port string

	bin, dir, data string
}

// StartPrivatePG creates a cluster with initdb (as the postgres user when the
// tests run as root: PostgreSQL refuses to run as root) and starts it.
func StartPrivatePG() *PrivatePG {
	GinkgoHelper()
	bin, err := postgresBinDir()
	Expect(err).NotTo(HaveOccurred())
	dir, err := os.MkdirTemp("", "formd-features-pg-")
	Expect(err).NotTo(HaveOccurred())
	pg := &PrivatePG{Port: freePort(), bin: bin, dir: dir, data: filepath.Join(dir, "data")}
	DeferCleanup(pg.destroy)
	if os.Geteuid() == 0 {
		// The cluster's files must belong to the user the server runs as.
		u, err := user.Lookup("postgres")
		Expect(err).NotTo(HaveOccurred(), "running as root, the private PostgreSQL needs a postgres user")
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		Expect(os.Chown(dir, uid, gid)).To(Succeed())
	}
	pg.run("initdb", "-D", pg.data, "-U", "postgres", "-A", "trust", "--encoding=UTF8", "--locale=C", "--no-sync")
	pg.Start()
	return pg
}

// URL is the URL of database name on the cluster, as user postgres.
func (pg *PrivatePG) URL(name string) string {
	return "postgres://postgres@127.0.0.1:" + pg.Port + "/" + name + "?sslmode=disable"
}

// Start starts the server and returns once it accepts connections: after a
// crash, once its crash recovery is done.
func (pg *PrivatePG) Start() {
	GinkgoHelper()
	pg.run("pg_ctl", "start", "-D", pg.data, "-w", "-t", "60", "-l", filepath.Join(pg.dir, "server.log"),
		"-o", "-p "+pg.Port+" -k "+pg.dir+" -c listen_addresses=127.0.0.1")
}

// Crash stops the server the way a power cut does (immediate mode: no
// checkpoint, every backend killed, crash recovery at the next start) and
// returns once it is gone.
func (pg *PrivatePG) Crash() {
	GinkgoHelper()
	pg.run("pg_ctl", "stop", "-D", pg.data, "-m", "immediate", "-w", "-t", "60")
}

// destroy stops the server, if it runs, and removes the cluster's folder.
func (pg *PrivatePG) destroy() {
	if _, err := os.Stat(filepath.Join(pg.data, "postmaster.pid")); err == nil {
		_ = pg.command("pg_ctl", "stop", "-D", pg.data, "-m", "immediate", "-w", "-t", "30").Run()
	}
	_ = os.RemoveAll(pg.dir)
}

// run runs one of the server's programs and fails the spec, with the
// server's log, unless it succeeds.
func (pg *PrivatePG) run(program string, args ...string) {
	GinkgoHelper()
	out, err := pg.command(program, args...).CombinedOutput()
	if err != nil {
		serverLog, _ := os.ReadFile(filepath.Join(pg.dir, "server.log"))
		Fail(program + " " + strings.Join(args, " ") + ": " + err.Error() + "\n" + string(out) + "\n" + lastLinesOf(string(serverLog), 20))
	}
}

// command is one of the server's programs, as the postgres user when the
// tests run as root.
func (pg *PrivatePG) command(program string, args ...string) *exec.Cmd {
	path := filepath.Join(pg.bin, program)
	var cmd *exec.Cmd
	if os.Geteuid() == 0 {
		cmd = exec.Command("runuser", append([]string{"-u", "postgres", "--", path}, args...)...)
	} else {
		cmd = exec.Command(path, args...)
	}
	cmd.Dir = pg.dir
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// postgresBinDir finds initdb and pg_ctl as scripts/ensure-postgres.sh does:
// pg_config --bindir, else the newest /usr/lib/postgresql/*/bin.
func postgresBinDir() (string, error) {
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		dir := strings.TrimSpace(string(out))
		if _, err := os.Stat(filepath.Join(dir, "initdb")); err == nil {
			return dir, nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	major := func(dir string) int {
		v, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
		return v
	}
	sort.Slice(dirs, func(i, j int) bool { return major(dirs[i]) > major(dirs[j]) })
	for _, dir := range dirs {
		if _, err := os.Stat(filepath.Join(dir, "initdb")); err == nil {
			return dir, nil
		}
	}
	return "", errors.New("no PostgreSQL server programs (initdb): install the postgresql package")
}

// lastLinesOf is the last n lines of s.
func lastLinesOf(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
