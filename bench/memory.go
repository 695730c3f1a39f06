package main

import (
	"bufio"
	"strconv"
	"strings"
)

// MemoryUse is formd's resident memory at the end of a phase, in MiB. Each
// phase that starts a formd of its own reads that process, so PeakMiB is
// the peak since that formd started.
type MemoryUse struct {
	Phase string `json:"phase"`
	// PeakMiB is VmHWM: the highest resident set size since the process started.
	PeakMiB float64 `json:"peakRssMiB"`
	// RSSMiB is VmRSS: the resident set size when the phase ended.
	RSSMiB float64 `json:"rssMiB"`
}

// parseProcStatusMemory reads VmHWM and VmRSS, in MiB, from the text of
// /proc/<pid>/status ("VmHWM:\t  123456 kB"); ok is false unless both are there.
func parseProcStatusMemory(status string) (peakMiB, rssMiB float64, ok bool) {
	var foundPeak, foundRSS bool
	sc := bufio.NewScanner(strings.NewReader(status))
	for sc.Scan() {
		name, value, found := strings.Cut(sc.Text(), ":")
		if !found || (name != "VmHWM" && name != "VmRSS") {
			continue
		}
		f := strings.Fields(value)
		if len(f) != 2 || f[1] != "kB" {
			return 0, 0, false
		}
		kib, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil || kib < 0 {
			return 0, 0, false
		}
		if name == "VmHWM" {
			peakMiB, foundPeak = float64(kib)/1024, true
		} else {
			rssMiB, foundRSS = float64(kib)/1024, true
		}
	}
	return peakMiB, rssMiB, foundPeak && foundRSS
}

// formdMemory reads formd's memory at the end of phase; nil where it cannot
// be read (not Linux, or the process is gone).
func formdMemory(phase string, pid int) *MemoryUse {
	peak, rss, ok := processMemory(pid)
	if !ok {
		return nil
	}
	return &MemoryUse{Phase: phase, PeakMiB: peak, RSSMiB: rss}
}

// peakMemory is the highest peak of the readings (0 when there are none).
func peakMemory(readings []MemoryUse) float64 {
	peak := 0.0
	for _, m := range readings {
		peak = max(peak, m.PeakMiB)
	}
	return peak
}
