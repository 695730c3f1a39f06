package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"strings"

	"github.com/formd/formd/application"
)

// exitIncomplete is formd rekey's exit status when something is left under
// an old key (docs/operations.md: Key rotation); 1 is an error that stopped it.
const exitIncomplete = 2

// exitError carries an exit status other than 1 out of run.
type exitError struct {
	code int
	msg  string
}

func (e exitError) Error() string { return e.msg }

// rekey runs `formd rekey [--dry-run]`: it re-seals under FORMD_SECRET_KEY
// whatever is still sealed under a key of FORMD_SECRET_KEYS_OLD, and prints
// what it did by key id.
func rekey(ctx context.Context, cfg Config, log *slog.Logger, args []string, out io.Writer) error {
	dryRun := false
	switch {
	case len(args) == 1:
	case len(args) == 2 && args[1] == "--dry-run":
		dryRun = true
	default:
		return errors.New("usage: formd rekey [--dry-run]")
	}
	h, cleanup, err := buildRekey(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer cleanup()
	report, err := h.Handle(ctx, application.RekeyPayloads{DryRun: dryRun})
	if err != nil { // what its committed batches did stays done: a second run goes on
		printRekeyLines(out, report)
		return fmt.Errorf("%w (what is reported above is done; run formd rekey again to go on)", err)
	}
	printRekeyReport(out, report)
	if !report.Complete() { // a dry run's report is what the run would leave
		return exitError{code: exitIncomplete, msg: "rekey: something is still sealed under an old key (above): keep that key"}
	}
	return nil
}

// printRekeyReport writes one line per kind of sealed record and a
// conclusion. It names key ids, never keys.
func printRekeyReport(out io.Writer, r application.RekeyReport) {
	printRekeyLines(out, r)
	switch {
	case r.DryRun:
		fmt.Fprintln(out, "dry run: nothing was written")
	case r.Complete():
		fmt.Fprintln(out, "nothing is left under an old key: drop it from FORMD_SECRET_KEYS_OLD once its links have expired (docs/operations.md: Key rotation)")
	}
}

// printRekeyLines writes the current key id and a line per kind reported.
func printRekeyLines(out io.Writer, r application.RekeyReport) {
	verb := "re-sealed"
	if r.DryRun {
		verb = "would re-seal"
	}
	fmt.Fprintf(out, "current key id %s\n", r.CurrentKeyID)
	for _, k := range r.Kinds {
		var parts []string
		if len(k.Resealed) > 0 {
			parts = append(parts, verb+" "+byKeyID(k.Resealed))
		}
		if len(k.CannotOpen) > 0 {
			parts = append(parts, "cannot open: "+byKeyID(k.CannotOpen))
		}
		if k.Left > 0 {
			parts = append(parts, fmt.Sprintf("%d left under an old key (busy, or sealed meanwhile by a process still running with the old FORMD_SECRET_KEY): run again", k.Left))
		}
		if len(parts) == 0 {
			parts = append(parts, "nothing under an old key")
		}
		fmt.Fprintf(out, "%s: %s\n", k.Kind, strings.Join(parts, "; "))
	}
}

// byKeyID says "key id 1a2b3c4d: 3, no key id: 1", in key id order.
func byKeyID(counts map[string]int) string {
	var parts []string
	for _, id := range slices.Sorted(maps.Keys(counts)) {
		if id == "" {
			parts = append(parts, fmt.Sprintf("no key id (sealed before key ids): %d", counts[id]))
			continue
		}
		parts = append(parts, fmt.Sprintf("key id %s: %d", id, counts[id]))
	}
	return strings.Join(parts, ", ")
}
