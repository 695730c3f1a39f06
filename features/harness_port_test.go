package features_test

// Which process listens on a port. The harness picks a free port and then
// starts formd on it; in between another process (another spec's formd, a
// client's ephemeral port) may take it. Then GET /healthz may be answered
// by that other process, and a spec once registered an account with another
// spec's formd and waited in vain for its mail. The harness therefore takes
// formd as started only when its own process holds the listening socket.

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// listensOn reports whether process pid holds the socket listening on
// 127.0.0.1:port (Linux: /proc/net/tcp and the process's descriptors).
func listensOn(pid int, port string) (bool, error) {
	p, err := strconv.Atoi(port)
	if err != nil {
		return false, err
	}
	inode, err := listeningInode(fmt.Sprintf("0100007F:%04X", p))
	if err != nil || inode == "" {
		return false, err
	}
	fds, err := filepath.Glob(fmt.Sprintf("/proc/%d/fd/*", pid))
	if err != nil {
		return false, err
	}
	for _, fd := range fds {
		if target, err := os.Readlink(fd); err == nil && target == "socket:["+inode+"]" {
			return true, nil
		}
	}
	return false, nil
}

// listeningInode is the inode of the socket in LISTEN state (0A) at
// local, an address as /proc/net/tcp writes it; "" when there is none.
func listeningInode(local string) (string, error) {
	f, err := os.Open("/proc/net/tcp")
	if err != nil {
		return "", err
	}
	defer f.Close()
	lines := bufio.NewScanner(f)
	for lines.Scan() {
		fields := strings.Fields(lines.Text())
		if len(fields) > 9 && fields[1] == local && fields[3] == "0A" {
			return fields[9], nil
		}
	}
	return "", lines.Err()
}

var _ = Describe("The harness", func() {
	It("tells the process that listens on a port from one that does not", func() {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		defer l.Close()
		_, port, err := net.SplitHostPort(l.Addr().String())
		Expect(err).NotTo(HaveOccurred())
		Expect(listensOn(os.Getpid(), port)).To(BeTrue(), "this test process listens on %s", port)
		Expect(listensOn(os.Getppid(), port)).To(BeFalse(), "its parent does not")
		l.Close()
		Expect(listensOn(os.Getpid(), port)).To(BeFalse(), "nobody listens once it is closed")
	})
})
