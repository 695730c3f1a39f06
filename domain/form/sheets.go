package form

import (
	"time"

	"github.com/formd/formd/domain"
)

// SheetProofRange is the cell a form's owner writes the form's proof code
// in, A1 of a sheet named formd, to prove they may write to a spreadsheet
// before formd appends to it as the operator's service account: sharing a
// spreadsheet with that account is something any tenant's spreadsheet
// does, so an id alone proves nothing.
const SheetProofRange = "formd!A1"

// GoogleSheetProvenType is the stored name of GoogleSheetProven.
const GoogleSheetProvenType = "form.google_sheet_proven.v1"

// GoogleSheetProven records that formd read the form's proof code in the
// spreadsheet's SheetProofRange: rows may now be appended to it.
type GoogleSheetProven struct {
	SpreadsheetID string    `json:"spreadsheetId"`
	At            time.Time `json:"at"`
}

// EventType implements Event.
func (GoogleSheetProven) EventType() string { return GoogleSheetProvenType }

// AwaitsSheetProof reports whether the form's Google Sheets integration
// names a spreadsheet not proven yet.
func (f *Form) AwaitsSheetProof() bool {
	in, ok := f.integrations[IntegrationGoogleSheets]
	return ok && in.SpreadsheetID != "" && !in.SheetProven
}

// ProveGoogleSheet records that the proof code was read in spreadsheetID,
// which must still be the integration's; proving it again records nothing.
func (f *Form) ProveGoogleSheet(spreadsheetID string, now time.Time) error {
	in, ok := f.integrations[IntegrationGoogleSheets]
	if !ok || in.SpreadsheetID != spreadsheetID || spreadsheetID == "" {
		return domain.Invalid("spreadsheetId", "the form's Google Sheets integration does not name this spreadsheet")
	}
	if in.SheetProven {
		return nil
	}
	f.record(GoogleSheetProven{SpreadsheetID: spreadsheetID, At: now.UTC()})
	return nil
}
