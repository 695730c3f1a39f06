package main

import (
	"strings"
	"testing"
)

func TestRunRefusesIncompleteFlags(t *testing.T) {
	cases := map[string]struct {
		args []string
		want string
	}{
		"binary without a platform": {[]string{"-binary", "bin/formd"}, "PLATFORM=PATH"},
		"no created time":           {[]string{"-binary", "linux/amd64=bin/formd"}, "-created"},
		"stray argument":            {[]string{"-created", "2026-11-27T12:00:00Z", "extra"}, "unexpected arguments"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			err := run(c.args)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("run(%q) = %v, want an error saying %q", c.args, err, c.want)
			}
		})
	}
}
