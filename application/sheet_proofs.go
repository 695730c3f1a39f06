package application

import (
	"context"
	"crypto/subtle"
	"errors"
	"strings"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/form"
)

// SheetProofs proves that a form's owner may write to the spreadsheet its
// Google Sheets integration names, before any row is appended to it as the
// operator's service account: the owner writes the form's proof code in
// form.SheetProofRange, and formd reads it there.
type SheetProofs struct {
	tx     Transactor
	hasher ValueHasher
	cells  SheetCells
	limits IntegrationTestLimits
	clock  Clock
}

// NewSheetProofs builds them; every dependency is required.
func NewSheetProofs(tx Transactor, hasher ValueHasher, cells SheetCells, limits IntegrationTestLimits, clock Clock) *SheetProofs {
	if tx == nil || hasher == nil || cells == nil || limits == nil || clock == nil {
		panic("application: nil dependency of SheetProofs")
	}
	return &SheetProofs{tx: tx, hasher: hasher, cells: cells, limits: limits, clock: clock}
}

// Code is the form's proof code for a spreadsheet: keyed with the server's
// secret, so nobody else can make it, and the same each time it is shown,
// so the owner can write it in before or after saving.
func (p *SheetProofs) Code(formID, spreadsheetID string) string {
	return "formd-proof-" + p.hasher.HashValue(formID, "integrations.google_sheets.proof", spreadsheetID)
}

// Try reads the proof cell of the spreadsheet and, when it holds the code,
// records the proof with md's actor. Each read counts as one of the form's
// integration tests (it calls Google in the operator's name); with none
// left, or when the cell cannot be read or holds something else, the sheet
// stays unproven and the answer is the same, so it tells nothing about
// spreadsheets the owner has not proven.
func (p *SheetProofs) Try(ctx context.Context, md Metadata, formID, spreadsheetID string) (bool, error) {
	now := p.clock.Now()
	ok, _, err := p.limits.Take(ctx, formID, form.IntegrationTestLimit, form.IntegrationTestWindow, now)
	if err != nil || !ok {
		return false, err
	}
	value, err := p.cells.ReadCell(ctx, spreadsheetID, form.SheetProofRange)
	want := p.Code(formID, spreadsheetID)
	if err != nil || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(value)), []byte(want)) != 1 {
		return false, nil
	}
	err = p.tx.InTx(ctx, md, func(tx Tx) error {
		f, err := tx.LoadForm(ctx, formID)
		if err != nil {
			return err
		}
		if err := f.ProveGoogleSheet(spreadsheetID, now); err != nil {
			return err
		}
		return tx.SaveForm(ctx, f)
	})
	// The integration was pointed elsewhere meanwhile: nothing is proven.
	if invalid := new(domain.InvalidInputError); errors.As(err, &invalid) {
		return false, nil
	}
	return err == nil, err
}
