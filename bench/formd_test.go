package main

import (
	"context"
	"os"
	"testing"
	"time"
)

// The bench runs from its own module and builds formd from the parent one:
// both builds must find their module from where make bench starts them.
func TestTheBenchBuildsFormdAndTheNaivePeerFromItsModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two binaries")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dir := t.TempDir()
	for name, build := range map[string]func(context.Context, string) (string, error){
		"formd": buildFormd, "naivepeer": buildNaivePeer,
	} {
		bin, err := build(ctx, dir)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if info, err := os.Stat(bin); err != nil || info.Mode()&0o111 == 0 {
			t.Fatalf("%s: no executable at %s (%v)", name, bin, err)
		}
	}
}
