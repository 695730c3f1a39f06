//go:build !linux

package main

import "errors"

// cpuSplit is not available where the CPUs of a process cannot be set.
type cpuSplit struct{ PostgresCPUs, RestCPUs []int }

// splitCPUs refuses here.
func splitCPUs(int) (*cpuSplit, error) {
	return nil, errors.New("-private-pg-cpus is supported on Linux only")
}

func (*cpuSplit) pinSelf() error { return nil }

func (*cpuSplit) pinPostgres(int) error { return nil }
