package mail_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/formd/formd/adapters/mail"
	"github.com/formd/formd/application"
)

// The development spool reads back what it wrote, newest first: the
// recipient, the decoded subject and the plain text (quoted-printable and
// non-ASCII included), also from a mail with an attachment.
func TestSpoolReadsBackItsMailsNewestFirst(t *testing.T) {
	sp, err := mail.NewSpool(filepath.Join(t.TempDir(), "spool"))
	if err != nil {
		t.Fatal(err)
	}
	first := sample()
	if err := send(t, sp, first); err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond) // file times order the spool
	second := sample()
	second.DeliveryID, second.Subject = "1d2b5c40-0000-4000-8000-000000000002", "Verify your address"
	second.Text = "Open https://forms.example.com/verify/abc to confirm.\n"
	second.Attachments = []application.MailAttachment{{Name: "cv.pdf", Type: "application/pdf", Content: []byte("%PDF-1.4\n")}}
	if err := send(t, sp, second); err != nil {
		t.Fatal(err)
	}
	got, err := sp.Messages(context.Background(), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("%d messages, want 2", len(got))
	}
	if got[0].Name != second.DeliveryID+".eml" || got[0].Subject != second.Subject || got[0].Text != second.Text {
		t.Errorf("newest %+v, want %q with text %q", got[0], second.Subject, second.Text)
	}
	if got[1].Subject != first.Subject || got[1].Text != first.Text || got[1].To != "owner@example.com" {
		t.Errorf("oldest %+v, want subject %q, text %q, to owner@example.com", got[1], first.Subject, first.Text)
	}
	if got[1].Date.IsZero() {
		t.Error("no date read")
	}
	if one, _ := sp.Messages(context.Background(), 1); len(one) != 1 || one[0].Name != second.DeliveryID+".eml" {
		t.Errorf("limit 1: %+v", one)
	}
}
