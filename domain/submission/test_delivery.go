package submission

import (
	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/form"
)

// TestMessage is the sample value a test of an integration sends, so
// whoever reads it knows no one submitted anything.
const TestMessage = "This is a test from formd"

// TestFields are the sample fields of a test delivery, in place of a
// submission's: one "message" field saying it is a test.
func TestFields() []Field { return []Field{{Name: "message", Value: TestMessage}} }

// TestDelivery is the delivery a test of the form's integration in queues:
// of the kind a submission would queue for it, to where it points now. A
// disabled integration may be tested (its owner checks it before turning
// it on), but one without its target cannot.
func TestDelivery(in form.Integration) (Planned, error) {
	planned, ok := plannedFor(in)
	if ok {
		return planned, nil
	}
	switch in.Type {
	case form.IntegrationTelegram:
		return Planned{}, domain.Invalid("chatId", "no Telegram chat is connected: send the connect code to the bot from the chat first")
	case form.IntegrationGoogleSheets:
		if in.SpreadsheetID == "" {
			return Planned{}, domain.Invalid("spreadsheetId", "spreadsheetId is required to test a google_sheets integration")
		}
		if in.SheetName != "" {
			return Planned{}, domain.Invalid("spreadsheetId", "the spreadsheet is not proven yet: write the integration's proof code in cell %s, then save the integration again", form.SheetProofRange)
		}
		return Planned{}, domain.Invalid("sheetName", "sheetName is required to test a google_sheets integration")
	}
	return Planned{}, domain.Invalid("targetUrl", "targetUrl is required to test a %s integration", in.Type)
}
