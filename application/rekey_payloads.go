package application

import (
	"context"
	"fmt"
)

// RekeyPayloads re-seals under the current key everything still sealed
// under an old one (`formd rekey`), so that an old key can be dropped
// without losing what it sealed.
type RekeyPayloads struct {
	// DryRun opens every record but writes nothing: the report counts what a
	// run would re-seal.
	DryRun bool
}

// RekeyReport says what a rekey did, kind by kind. It names key ids, never
// keys.
type RekeyReport struct {
	CurrentKeyID string
	DryRun       bool
	Kinds        []RekeyedKind
}

// RekeyedKind is what a rekey did with one kind of sealed record.
type RekeyedKind struct {
	Kind SealedKind
	// Resealed counts the records re-sealed (on a dry run: that would be) by
	// the id of the old key they were sealed under; "" for records sealed
	// before key ids existed.
	Resealed map[string]int
	// CannotOpen counts, by key id, the records no configured key opens:
	// left as they are.
	CannotOpen map[string]int
	// Left is how many other records are still under an old key after the
	// run: held by another transaction all along, or sealed meanwhile by a
	// process still running with the old key as FORMD_SECRET_KEY.
	Left int
}

// Complete says whether nothing is left under an old key.
func (r RekeyReport) Complete() bool {
	for _, k := range r.Kinds {
		if k.Left > 0 || len(k.CannotOpen) > 0 {
			return false
		}
	}
	return true
}

// RekeyPayloadsHandler walks every kind of sealed record in bounded batches,
// each one transaction that passes over records another holds, so it runs
// while formd serves and delivers. A delivery reads a payload either before
// or after its batch commits, sealed under the old key or the new one: both
// are configured in every process after the restart of a rotation, so either
// opens. Records already under the current key are not touched, so a second
// run does nothing and an interrupted one goes on where it stopped.
type RekeyPayloadsHandler struct {
	records SealedRecords
	sealer  KeyedSealer
	// hasher hashes under the key sealer seals with: a payload's value
	// hashes are re-made with its seal.
	hasher ValueHasher
}

// NewRekeyPayloadsHandler builds the handler; every dependency is required.
func NewRekeyPayloadsHandler(records SealedRecords, sealer KeyedSealer, hasher ValueHasher) *RekeyPayloadsHandler {
	if records == nil || sealer == nil || hasher == nil {
		panic("application: nil dependency of RekeyPayloadsHandler")
	}
	return &RekeyPayloadsHandler{records: records, sealer: sealer, hasher: hasher}
}

// sealedBinding is the id each kind's records are sealed with (Sealer's id
// argument), the same as where they are sealed.
var sealedBinding = map[SealedKind]func(string) string{
	SealedSubmissionPayloads: func(submissionID string) string { return submissionID },
	SealedTestSubmissions:    testInboxAAD,
	SealedWebhookSecrets:     webhookSecretAAD,
	SealedCaptchaSecrets:     captchaSecretAAD,
}

// Handle re-seals every kind in turn and reports what it did.
func (h *RekeyPayloadsHandler) Handle(ctx context.Context, cmd RekeyPayloads) (RekeyReport, error) {
	report := RekeyReport{CurrentKeyID: h.sealer.CurrentKeyID(), DryRun: cmd.DryRun}
	for _, kind := range SealedKinds {
		done, err := h.rekeyKind(ctx, kind, report.CurrentKeyID, cmd.DryRun)
		if err != nil {
			return report, fmt.Errorf("re-sealing %s: %w", kind, err)
		}
		report.Kinds = append(report.Kinds, done)
	}
	return report, nil
}

// maxRekeyWalks bounds the walks over one kind: a process still sealing
// under the old key would otherwise keep a run going; what it sealed is
// reported as left.
const maxRekeyWalks = 3

// rekeyKind walks the kind until a walk re-seals nothing: a record passed
// over because another transaction held it is taken by the next walk. The
// records no key opens are counted by the last walk, which met them all.
func (h *RekeyPayloadsHandler) rekeyKind(ctx context.Context, kind SealedKind, current string, dryRun bool) (RekeyedKind, error) {
	done := RekeyedKind{Kind: kind, Resealed: map[string]int{}}
	for walks := 1; ; walks++ {
		resealed, cannotOpen, err := h.walk(ctx, kind, current, dryRun)
		if err != nil {
			return done, err
		}
		for id, n := range resealed {
			done.Resealed[id] += n
		}
		done.CannotOpen = cannotOpen
		if len(resealed) == 0 || dryRun || walks == maxRekeyWalks {
			break
		}
	}
	counts, err := h.records.CountSealed(ctx, kind)
	if err != nil {
		return done, err
	}
	for id, n := range counts {
		if id == current {
			continue
		}
		if dryRun {
			n -= done.Resealed[id]
		}
		done.Left += max(n-done.CannotOpen[id], 0)
	}
	return done, nil
}

// walk goes once through the kind's records under an old key.
func (h *RekeyPayloadsHandler) walk(ctx context.Context, kind SealedKind, current string, dryRun bool) (resealed, cannotOpen map[string]int, err error) {
	bind := sealedBinding[kind]
	resealed, cannotOpen = map[string]int{}, map[string]int{}
	for after := ""; ; {
		after, err = h.records.ResealBatch(ctx, kind, current, after, func(r SealedRecord) (Resealed, bool, error) {
			id := bind(r.BoundTo)
			plain, err := h.sealer.Open(id, r.Sealed)
			if err != nil {
				cannotOpen[r.Sealed.KeyID]++
				return Resealed{}, false, nil
			}
			if dryRun {
				resealed[r.Sealed.KeyID]++
				return Resealed{}, false, nil
			}
			out := Resealed{}
			if r.Indexed {
				if out.ValueHashes, err = h.rehash(r.FormID, plain); err != nil {
					return Resealed{}, false, err
				}
			}
			if out.Sealed, err = h.sealer.Seal(id, plain); err != nil {
				return Resealed{}, false, err
			}
			resealed[r.Sealed.KeyID]++
			return out, true, nil
		})
		if err != nil { // the batch wrote nothing, and the run stops: the counts go with it
			return nil, nil, err
		}
		if after == "" {
			return resealed, cannotOpen, nil
		}
	}
}

// rehash is a payload's value hashes under the current key, made as the
// submission's acceptance made them.
func (h *RekeyPayloadsHandler) rehash(formID string, plain []byte) (map[string]string, error) {
	p, err := decodePayload(plain)
	if err != nil {
		return nil, err
	}
	return valueHashesOfFields(h.hasher, formID, p.Fields), nil
}
