package main

import (
	"fmt"
	"os"
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
	cpus := cpuList(&allowed)
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

// cpuList is the CPUs in set, in order.
func cpuList(set *unix.CPUSet) []int {
	var cpus []int
	for cpu := 0; len(cpus) < set.Count(); cpu++ {
		if set.IsSet(cpu) {
			cpus = append(cpus, cpu)
		}
	}
	return cpus
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

// pinPostgres moves the postmaster pid and every process it has forked to
// PostgreSQL's CPUs; what it forks later inherits them. (Starting it from a
// pinned thread would not do: the server is told to stop when the thread
// that started it ends, Pdeathsig being a thread's.) Called right after the
// start and again once the server answers, for the processes it forked
// meanwhile.
func (s *cpuSplit) pinPostgres(pid int) error {
	if err := unix.SchedSetaffinity(pid, &s.postgres); err != nil {
		return fmt.Errorf("pinning the postmaster: %w", err)
	}
	children, err := childrenOf(pid)
	if err != nil {
		return err
	}
	for _, child := range children {
		if err := unix.SchedSetaffinity(child, &s.postgres); err != nil && err != unix.ESRCH {
			return fmt.Errorf("pinning PostgreSQL process %d: %w", child, err)
		}
	}
	return nil
}

// childrenOf lists the processes whose parent is pid.
func childrenOf(pid int) ([]int, error) {
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	var children []int
	for _, p := range procs {
		if child, err := strconv.Atoi(p.Name()); err == nil && parentOf(child) == pid {
			children = append(children, child)
		}
	}
	return children, nil
}

// parentOf is process pid's parent (0 if it has ended or cannot be read).
func parentOf(pid int) int {
	f := procStat(pid)
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}
