package main

import (
	"runtime/debug"
	"testing"
)

func TestTheBuildComesFromBuildInfoUnlessSetAtLinkTime(t *testing.T) {
	info := func() (*debug.BuildInfo, bool) {
		return &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "4053479abc"}, {Key: "vcs.time", Value: "2026-11-27T14:00:00Z"}, {Key: "vcs.modified", Value: "true"},
		}}, true
	}
	if got, want := buildOf("", "", "", info).String(), "formd devel (commit 4053479abc (modified), built 2026-11-27T14:00:00Z, go1.26.8)"; got != want {
		t.Errorf("from build info: %q, want %q", got, want)
	}
	if got, want := buildOf("v0.1.0", "feedbeef", "2026-12-01T00:00:00Z", info).String(),
		"formd v0.1.0 (commit feedbeef (modified), built 2026-12-01T00:00:00Z, go1.26.8)"; got != want {
		t.Errorf("set at link time: %q, want %q", got, want)
	}
	none := func() (*debug.BuildInfo, bool) { return nil, false }
	if got := buildOf("", "", "", none).String(); got != "formd devel" {
		t.Errorf("without build info: %q", got)
	}
}
