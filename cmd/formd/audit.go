package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/formd/formd/application"
)

// exitFindings is formd audit verify's exit status when it found tampering
// (docs/audit.md: Verifying); 1 is an error that stopped it.
const exitFindings = 2

// audit runs `formd audit verify`: it checks every stream's hash chain
// against the stored events and prints each finding.
func audit(ctx context.Context, cfg Config, log *slog.Logger, args []string, out io.Writer) error {
	if len(args) != 2 || args[1] != "verify" {
		return errors.New("usage: formd audit verify")
	}
	h, cleanup, err := buildAuditVerify(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer cleanup()
	v, err := h.Handle(ctx)
	if err != nil {
		return fmt.Errorf("audit verify: %w", err)
	}
	return printVerification(out, v)
}

// printVerification writes a line per finding and a conclusion, and makes
// a finding the exit status.
func printVerification(out io.Writer, v application.AuditVerification) error {
	for _, f := range v.Findings {
		where := fmt.Sprintf("%s stream %s, version %d", f.StreamType, f.StreamID, f.Version)
		if f.Position > 0 {
			where += fmt.Sprintf(" (%s, log position %d)", f.EventType, f.Position)
		}
		fmt.Fprintf(out, "FINDING %s: %s\n", where, f.Problem)
	}
	t := v.Tally
	fmt.Fprintf(out, "checked %d events in %d streams; %d wait to be chained by the audit chain job\n", t.Events, t.Streams, t.Unchained)
	if len(v.Findings) > 0 {
		return exitError{code: exitFindings, msg: fmt.Sprintf("audit verify: %d finding(s): the audit log does not match its chain (above)", len(v.Findings))}
	}
	fmt.Fprintln(out, "every chain matches its events")
	return nil
}
