package web

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/submission"
)

// A delivery whose submission the classifier gave no verdict on says so in
// the log's row; one it checked, or never asked about, says nothing.
func TestTheDeliveryListNotesAnUnavailableSpamCheck(t *testing.T) {
	at := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	page := deliveriesPage{Form: formHeader{ID: "f1"}}
	for i, check := range []string{submission.SpamCheckUnavailable, submission.SpamCheckChecked, ""} {
		page.Deliveries = append(page.Deliveries, rowOf(application.DeliveryRecord{ID: string(rune('a' + i)), Kind: "email",
			State: "succeeded", CreatedAt: at, SpamCheck: check}))
	}
	var buf bytes.Buffer
	if err := mustParsePages().byName["form-deliveries"].ExecuteTemplate(&buf, "content", view{Data: page}); err != nil {
		t.Fatal(err)
	}
	rows := strings.Split(buf.String(), "<tr>")[2:] // the header's row, then one per delivery
	if len(rows) != 3 {
		t.Fatalf("%d rows, want 3:\n%s", len(rows), buf.String())
	}
	for i, want := range []bool{true, false, false} {
		if got := strings.Contains(rows[i], submission.MsgSpamCheckUnavailable); got != want {
			t.Errorf("row %d notes the unavailable spam check: %v, want %v\n%s", i, got, want, rows[i])
		}
	}
}
