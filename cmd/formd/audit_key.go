package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/formd/formd/adapters/auditlog"
)

// auditKeyUsage is the one line a wrong `formd audit key` answers.
const auditKeyUsage = "usage: formd audit key (prints the configured key's verifier key) or formd audit key generate NAME (NAME such as forms.example.com/audit: no spaces, no '+')"

// auditKey runs `formd audit key generate NAME`, which prints a new signing
// key and its verifier key, and `formd audit key`, which prints the
// verifier key of the configured one; args are what follows "audit key".
func auditKey(cfg Config, log *slog.Logger, args []string, out io.Writer) error {
	switch {
	case len(args) == 0:
		s, err := auditlog.LoadSigningKey(cfg.AuditSigningKey, cfg.DataDir, cfg.Dev, log)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "verifier key (publish it; auditors pin it): %s\n", s.VerifierKey())
		return nil
	case len(args) == 2 && args[0] == "generate":
		if err := checkKeyName(args[1]); err != nil {
			return err
		}
		skey, vkey, err := auditlog.GenerateKey(args[1])
		if err != nil {
			return fmt.Errorf("audit key generate: %w", err)
		}
		fmt.Fprintf(out, "FORMD_AUDIT_SIGNING_KEY=%s\n", skey)
		fmt.Fprintf(out, "verifier key (publish it; auditors pin it): %s\n", vkey)
		return nil
	}
	return errors.New(auditKeyUsage)
}

// checkKeyName applies the note format's rule for key names, which
// note.GenerateKey does not check: a name it would accept can still make a
// key no signer or verifier parses.
func checkKeyName(name string) error {
	if name == "" || !utf8.ValidString(name) || strings.IndexFunc(name, unicode.IsSpace) >= 0 || strings.Contains(name, "+") {
		return fmt.Errorf("audit key generate: the key name %q must be non-empty, with no spaces and no '+', such as forms.example.com/audit", name)
	}
	return nil
}
