//go:build !linux

package main

import (
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
