//go:build !linux

package main

import (
	"errors"
	"os/exec"
	"time"
)

// preciseSleep is time.Sleep where nanosleep is not available.
func preciseSleep(d time.Duration) { time.Sleep(d) }

// endWithParent does nothing where the kernel cannot tie a child to its parent.
func endWithParent(*exec.Cmd) {}

// processCPU is unknown here.
func processCPU(int) (time.Duration, bool) { return 0, false }

// machineCPU is unknown here.
func machineCPU() (busy, total time.Duration, ok bool) { return 0, 0, false }

// processMemory is unknown here.
func processMemory(int) (peakMiB, rssMiB float64, ok bool) { return 0, 0, false }

// serverUser refuses: the private PostgreSQL is started on Linux only.
func serverUser() (*account, error) {
	return nil, errors.New("-private-pg is supported on Linux only")
}

// runAs does nothing here (serverUser refused before it is needed).
func runAs(*exec.Cmd, *account) {}
