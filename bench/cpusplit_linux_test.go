package main

import (
	"os"
	"os/exec"
	"slices"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// cpusOf is the CPUs process or thread id may run on, as the kernel has them.
func cpusOf(t *testing.T, id int) []int {
	t.Helper()
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(id, &set); err != nil {
		t.Fatal(err)
	}
	return cpuList(&set)
}

// waitForChildren waits up to 5 s for pid to have n children, and returns them.
func waitForChildren(t *testing.T, pid, n int) []int {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		children, err := childrenOf(pid)
		if err != nil {
			t.Fatal(err)
		}
		if len(children) >= n {
			return children
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d has %d children after 5 s; want %d", pid, len(children), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestPostgresRunsOnItsCPUsAndEverythingElseOnTheOthers(t *testing.T) {
	var before unix.CPUSet
	if err := unix.SchedGetaffinity(0, &before); err != nil {
		t.Fatal(err)
	}
	if before.Count() < 2 {
		t.Skip("a split needs at least two CPUs")
	}
	split, err := splitCPUs(1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Give this test process's threads back every CPU they had.
		split.rest = before
		if err := split.pinSelf(); err != nil {
			t.Error(err)
		}
	})
	if len(split.PostgresCPUs) != 1 || len(split.RestCPUs) != before.Count()-1 || slices.Contains(split.RestCPUs, split.PostgresCPUs[0]) {
		t.Fatalf("PostgreSQL on %v, the rest on %v: want one CPU apart from the others", split.PostgresCPUs, split.RestCPUs)
	}
	if err := split.pinSelf(); err != nil {
		t.Fatal(err)
	}
	// A stand-in postmaster: a shell with a child forked before it is
	// pinned, and one forked after.
	server := exec.Command("sh", "-c", "sleep 10 & read go; sleep 10 & wait")
	toServer, err := server.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = server.Process.Kill(); _ = server.Wait() }()
	pid := server.Process.Pid
	waitForChildren(t, pid, 1)
	if err := split.pinPostgres(pid); err != nil {
		t.Fatal(err)
	}
	if _, err := toServer.Write([]byte("go\n")); err != nil {
		t.Fatal(err)
	}
	for _, p := range append([]int{pid}, waitForChildren(t, pid, 2)...) {
		if got := cpusOf(t, p); !slices.Equal(got, split.PostgresCPUs) {
			t.Errorf("server process %d runs on CPUs %v; want %v", p, got, split.PostgresCPUs)
		}
	}
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range tasks {
		tid, err := strconv.Atoi(task.Name())
		if err != nil {
			t.Fatal(err)
		}
		var set unix.CPUSet
		if err := unix.SchedGetaffinity(tid, &set); err == unix.ESRCH {
			continue // the thread ended since the listing
		} else if err != nil {
			t.Fatal(err)
		}
		if got := cpuList(&set); !slices.Equal(got, split.RestCPUs) {
			t.Errorf("thread %s of the bench runs on CPUs %v; want %v", task.Name(), got, split.RestCPUs)
		}
	}
	other := exec.Command("sleep", "10")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = other.Process.Kill(); _ = other.Wait() }()
	if got := cpusOf(t, other.Process.Pid); !slices.Equal(got, split.RestCPUs) {
		t.Errorf("a child started afterwards runs on CPUs %v; want %v", got, split.RestCPUs)
	}
}

func TestASplitLeavesACPUForTheRest(t *testing.T) {
	var allowed unix.CPUSet
	if err := unix.SchedGetaffinity(0, &allowed); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, -1, allowed.Count()} {
		if _, err := splitCPUs(n); err == nil {
			t.Errorf("%d CPUs of %d for PostgreSQL was taken; want an error", n, allowed.Count())
		}
	}
}
