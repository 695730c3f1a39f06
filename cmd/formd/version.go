package main

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// version, commit and buildTime may be set at link time
// (-ldflags "-X main.version=v0.1.0 -X main.commit=… -X main.buildTime=…"),
// as a release build does; unset, they come from the build information Go
// records in every binary built from a checkout.
var (
	version   string
	commit    string
	buildTime string
)

// build is what this binary was built from.
type build struct {
	Version   string
	Commit    string
	Time      string
	Modified  bool
	GoVersion string
}

// currentBuild reads the link-time values and the binary's build information.
func currentBuild() build {
	return buildOf(version, commit, buildTime, debug.ReadBuildInfo)
}

func buildOf(version, commit, buildTime string, read func() (*debug.BuildInfo, bool)) build {
	b := build{Version: version, Commit: commit, Time: buildTime}
	if info, ok := read(); ok {
		b.GoVersion = info.GoVersion
		if b.Version == "" {
			b.Version = info.Main.Version
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				if b.Commit == "" {
					b.Commit = s.Value
				}
			case "vcs.time":
				if b.Time == "" {
					b.Time = s.Value
				}
			case "vcs.modified":
				b.Modified = s.Value == "true"
			}
		}
	}
	if b.Version == "" || b.Version == "(devel)" {
		b.Version = "devel" // built from a checkout rather than a tagged module or release
	}
	return b
}

// String is the line `formd version` prints.
func (b build) String() string {
	parts := []string{}
	if b.Commit != "" {
		c := "commit " + b.Commit
		if b.Modified {
			c += " (modified)"
		}
		parts = append(parts, c)
	}
	if b.Time != "" {
		parts = append(parts, "built "+b.Time)
	}
	if b.GoVersion != "" {
		parts = append(parts, b.GoVersion)
	}
	if len(parts) == 0 {
		return "formd " + b.Version
	}
	return fmt.Sprintf("formd %s (%s)", b.Version, strings.Join(parts, ", "))
}
