package auditlog

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/formd/formd/application"
)

// DirectoryPublisher implements application.CheckpointPublisher by writing
// each checkpoint to Dir as <tree size>.checkpoint, for the operator to
// ship somewhere they do not control alone (docs/audit.md); with no Dir it
// publishes nothing.
type DirectoryPublisher struct {
	Dir string
}

// Publish implements application.CheckpointPublisher. The file appears
// whole or not at all.
func (p DirectoryPublisher) Publish(_ context.Context, c application.Checkpoint) error {
	if p.Dir == "" {
		return nil
	}
	if err := os.MkdirAll(p.Dir, 0o755); err != nil {
		return err
	}
	name := filepath.Join(p.Dir, fmt.Sprintf("%d.checkpoint", c.Size))
	tmp, err := os.CreateTemp(p.Dir, ".checkpoint-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(c.Signed); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), name)
}
