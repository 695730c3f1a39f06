package main

import "testing"

// A trimmed /proc/<pid>/status of a Go process.
const procStatus = `Name:	formd
Umask:	0022
State:	S (sleeping)
VmPeak:	 1262696 kB
VmSize:	 1262696 kB
VmHWM:	   61440 kB
VmRSS:	   40960 kB
RssAnon:	   30000 kB
Threads:	9
`

func TestParseProcStatusMemoryReadsPeakAndCurrentRSSInMiB(t *testing.T) {
	peak, rss, ok := parseProcStatusMemory(procStatus)
	if !ok || peak != 60 || rss != 40 {
		t.Fatalf("got peak %v MiB, rss %v MiB, ok %v; want 60, 40, true", peak, rss, ok)
	}
}

func TestParseProcStatusMemoryRefusesWhatItCannotRead(t *testing.T) {
	for name, status := range map[string]string{
		"no VmHWM (a kernel thread)": "Name:\tkthreadd\nVmRSS:\t 100 kB\n",
		"no VmRSS":                   "VmHWM:\t 100 kB\n",
		"another unit":               "VmHWM:\t 100 MB\nVmRSS:\t 100 kB\n",
		"not a number":               "VmHWM:\t many kB\nVmRSS:\t 100 kB\n",
		"empty":                      "",
	} {
		if peak, rss, ok := parseProcStatusMemory(status); ok {
			t.Errorf("%s: got %v, %v, ok; want not ok", name, peak, rss)
		}
	}
}

func TestPeakMemoryIsTheHighestPeakOfAllPhases(t *testing.T) {
	got := peakMemory([]MemoryUse{{Phase: "a", PeakMiB: 80, RSSMiB: 70}, {Phase: "b", PeakMiB: 120.5, RSSMiB: 30}, {Phase: "c", PeakMiB: 90}})
	if got != 120.5 {
		t.Fatalf("peakMemory = %v, want 120.5", got)
	}
	if peakMemory(nil) != 0 {
		t.Fatal("peakMemory of no readings is not 0")
	}
}
