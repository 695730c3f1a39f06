package main

import (
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// preciseSleep sleeps in the kernel (nanosleep), which wakes about 0.1 ms
// late instead of the up to 1 ms of the Go runtime's timers. A signal may
// end it early.
func preciseSleep(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	_ = syscall.Nanosleep(&ts, nil)
}

// endWithParent makes the kernel send cmd SIGTERM if the benchmark dies
// without stopping it (kill -9), so no formd is left behind.
func endWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}

// clockTicks is the kernel's USER_HZ, 100 on every Linux platform Go supports.
const clockTicks = 100

// procStat is the fields of /proc/<pid>/stat after "pid (comm)": f[0] is
// the state, f[1] the parent, f[11] and f[12] the user and system CPU time
// (nil if the process has ended or cannot be read).
func procStat(pid int) []string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil
	}
	s := string(b)
	return strings.Fields(s[strings.LastIndexByte(s, ')')+1:]) // comm may hold spaces and parentheses
}

// processCPU is the CPU time (user + system) process pid has used.
func processCPU(pid int) (time.Duration, bool) {
	f := procStat(pid)
	if len(f) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(utime+stime) * time.Second / clockTicks, true
}

// machineCPU is the busy and total CPU time of every CPU since boot.
func machineCPU() (busy, total time.Duration, ok bool) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, false
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return 0, 0, false
	}
	var v [8]int64 // user nice system idle iowait irq softirq steal
	for i := range v {
		v[i], _ = strconv.ParseInt(f[i+1], 10, 64)
	}
	idle := v[3] + v[4]
	all := v[0] + v[1] + v[2] + v[5] + v[6] + v[7] + idle
	return time.Duration(all-idle) * time.Second / clockTicks, time.Duration(all) * time.Second / clockTicks, true
}

// processMemory is process pid's peak and current resident set size, in MiB.
func processMemory(pid int) (peakMiB, rssMiB float64, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, false
	}
	return parseProcStatusMemory(string(b))
}

// serverUser is the account the private PostgreSQL runs as: PostgreSQL
// refuses to run as root, so root runs it as the postgres user (as
// scripts/ensure-postgres.sh does with runuser); anyone else runs it as
// themselves (nil).
func serverUser() (*account, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("running as root, the private PostgreSQL needs a postgres user: %w", err)
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err1 != nil || err2 != nil {
		return nil, fmt.Errorf("postgres user: uid %q gid %q", u.Uid, u.Gid)
	}
	return &account{uid: int(uid), gid: int(gid)}, nil
}

// runAs makes cmd run as acct (nil: as the benchmark's own user), and makes
// the kernel interrupt it (for PostgreSQL: fast shutdown) if the benchmark
// dies without stopping it.
func runAs(cmd *exec.Cmd, acct *account) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGINT}
	if acct != nil {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(acct.uid), Gid: uint32(acct.gid)}
	}
}
