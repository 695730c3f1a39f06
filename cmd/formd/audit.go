package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/formd/formd/application"
)

// exitFindings is formd audit verify's exit status when it found tampering
// (docs/audit.md: Verifying); 1 is an error that stopped it.
const exitFindings = 2

// audit runs `formd audit key` (audit_key.go), `formd audit checkpoint`,
// `formd audit verify`, which checks every stream's hash chain
// and every checkpoint against the stored events and prints each finding,
// and `formd audit verify --bundle FILE [--key VERIFIER_KEY]`, which checks
// an auditor's bundle with no database and no network.
func audit(ctx context.Context, cfg Config, log *slog.Logger, args []string, out io.Writer) error {
	const usage = "usage: formd audit verify [--bundle FILE [--key VERIFIER_KEY]] | formd audit checkpoint | formd audit key [generate NAME]"
	if len(args) >= 2 && args[1] == "key" {
		return auditKey(cfg, log, args[2:], out)
	}
	if len(args) == 2 && args[1] == "checkpoint" {
		return auditCheckpoint(ctx, cfg, log, out)
	}
	if len(args) < 2 || args[1] != "verify" {
		return errors.New(usage)
	}
	if len(args) > 2 {
		flags := flag.NewFlagSet("formd audit verify", flag.ContinueOnError)
		flags.SetOutput(io.Discard)
		file := flags.String("bundle", "", "")
		key := flags.String("key", "", "")
		if err := flags.Parse(args[2:]); err != nil || *file == "" || flags.NArg() > 0 {
			return errors.New(usage)
		}
		return verifyBundle(*file, *key, out)
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

// auditCheckpoint runs the checkpoint job once, now: an operator's way to
// cover what was just committed, as an export does.
func auditCheckpoint(ctx context.Context, cfg Config, log *slog.Logger, out io.Writer) error {
	h, cleanup, err := buildAuditCheckpoint(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer cleanup()
	n, err := h.Handle(ctx)
	if err != nil {
		return fmt.Errorf("audit checkpoint: %w", err)
	}
	fmt.Fprintf(out, "signed %d checkpoint(s)\n", n)
	return nil
}

// verifyBundle checks the bundle in file; a bundle that does not verify is
// a finding (exit status 2), a file that cannot be read an error.
func verifyBundle(file, key string, out io.Writer) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("audit verify: %w", err)
	}
	r, err := buildAuditBundleVerify().Handle(data, key)
	if err != nil {
		fmt.Fprintf(out, "FINDING %s: %v\n", file, err)
		return exitError{code: exitFindings, msg: "audit verify: the bundle does not verify (above)"}
	}
	fmt.Fprintf(out, "%s stream %s: %d events, each chained to the one before and included in the checkpoint of %d events of %s signed by %s\n",
		r.StreamType, r.StreamID, r.Events, r.TreeSize, r.Origin, r.VerifierKey)
	if key == "" {
		fmt.Fprintln(out, "the key was not pinned (--key): compare it with the one the operator published")
	}
	fmt.Fprintln(out, "the bundle verifies")
	return nil
}

// printVerification writes a line per finding and a conclusion, and makes
// a finding the exit status.
func printVerification(out io.Writer, v application.AuditVerification) error {
	for _, f := range v.Findings {
		var where string
		switch {
		case f.StreamID == "":
			where = fmt.Sprintf("checkpoint of %d events", f.TreeSize)
		default:
			where = fmt.Sprintf("%s stream %s, version %d", f.StreamType, f.StreamID, f.Version)
			if f.StreamType == "" {
				where = fmt.Sprintf("stream %s, version %d", f.StreamID, f.Version)
			}
			if f.Position > 0 {
				where += fmt.Sprintf(" (%slog position %d)", typeOf(f.EventType), f.Position)
			}
		}
		fmt.Fprintf(out, "FINDING %s: %s\n", where, f.Problem)
	}
	t := v.Tally
	fmt.Fprintf(out, "checked %d events in %d streams; %d wait to be chained by the audit chain job\n", t.Events, t.Streams, t.Unchained)
	fmt.Fprintf(out, "checked %d checkpoints; the latest covers %d events\n", v.Checkpoints.Checkpoints, v.Checkpoints.Leaves)
	if len(v.Findings) > 0 {
		return exitError{code: exitFindings, msg: fmt.Sprintf("audit verify: %d finding(s): the audit log does not match its chain (above)", len(v.Findings))}
	}
	fmt.Fprintln(out, "every chain and checkpoint matches the events")
	return nil
}

// typeOf is an event type followed by a comma, or nothing when unknown.
func typeOf(eventType string) string {
	if eventType == "" {
		return ""
	}
	return eventType + ", "
}
