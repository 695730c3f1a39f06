package auditlog

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/formd/formd/application"
)

func TestEachCheckpointIsPublishedAsAFileOfItsSize(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "checkpoints")
	p := DirectoryPublisher{Dir: dir}
	for _, c := range []application.Checkpoint{{Size: 7, Signed: "seven\n"}, {Size: 12, Signed: "twelve\n"}} {
		if err := p.Publish(t.Context(), c); err != nil {
			t.Fatal(err)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 2 {
		t.Fatalf("%v %v: want two files and no temporary one", entries, err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "12.checkpoint")); err != nil || string(b) != "twelve\n" {
		t.Fatalf("12.checkpoint: %q %v", b, err)
	}
	if err := (DirectoryPublisher{}).Publish(t.Context(), application.Checkpoint{Size: 1}); err != nil {
		t.Fatalf("no folder set: %v", err)
	}
}
