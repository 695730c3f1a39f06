package main

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"

	"golang.org/x/sys/unix"
)

// cpuSplit gives the private PostgreSQL some of the machine's CPUs and
// everything else the others: this process (so the load generator) and
// every child it starts after pinSelf (formd, the naive peer, pgbench).
// Sharing CPUs, PostgreSQL's statements are timed while they wait for
// formd and the load generator to leave a CPU; split, statement time is
// PostgreSQL's own.
type cpuSplit struct {
	postgres, rest unix.CPUSet
	// PostgresCPUs and RestCPUs name the CPUs of each side, for the report.
	PostgresCPUs, RestCPUs []int
}

// splitCPUs gives PostgreSQL the last n of the CPUs this process may run
// on; at least one must be left for the rest.
func splitCPUs(n int) (*cpuSplit, error) {
	var allowed unix.CPUSet
	if err := unix.SchedGetaffinity(0, &allowed); err != nil {
		return nil, fmt.Errorf("reading this process's CPUs: %w", err)
	}
	var cpus []int
	for cpu := 0; cpu < len(allowed)*64 && len(cpus) < allowed.Count(); cpu++ {
		if allowed.IsSet(cpu) {
			cpus = append(cpus, cpu)
		}
	}
	if n < 1 || n >= len(cpus) {
		return nil, fmt.Errorf("%d CPUs for PostgreSQL out of %d leaves none for formd and the load generator", n, len(cpus))
	}
	s := &cpuSplit{PostgresCPUs: cpus[len(cpus)-n:], RestCPUs: cpus[:len(cpus)-n]}
	for _, cpu := range s.PostgresCPUs {
		s.postgres.Set(cpu)
	}
	for _, cpu := range s.RestCPUs {
		s.rest.Set(cpu)
	}
	return s, nil
}

// pinSelf moves every thread of this process to the rest's CPUs; threads
// and children made later inherit them.
func (s *cpuSplit) pinSelf() error {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return err
	}
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		// A thread may have ended since the listing: only a live one's refusal counts.
		if err := unix.SchedSetaffinity(tid, &s.rest); err != nil && err != unix.ESRCH {
			return fmt.Errorf("pinning thread %d: %w", tid, err)
		}
	}
	return nil
}

// startPostgres starts cmd on PostgreSQL's CPUs: the kernel gives a child
// the CPUs of the thread that forks it, so cmd is started from a thread
// locked to its goroutine and pinned there first. The thread ends with the
// goroutine (it is never unlocked), and pinSelf puts back any thread the
// runtime made from it meanwhile.
func (s *cpuSplit) startPostgres(cmd *exec.Cmd) error {
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if err := unix.SchedSetaffinity(0, &s.postgres); err != nil {
			started <- fmt.Errorf("pinning the thread that starts PostgreSQL: %w", err)
			return
		}
		started <- cmd.Start()
	}()
	if err := <-started; err != nil {
		return err
	}
	return s.pinSelf()
}
