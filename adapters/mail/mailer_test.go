package mail_test

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/formd/formd/adapters/mail"
	"github.com/formd/formd/adapters/mail/mailtest"
	"github.com/formd/formd/application"
)

func sample() application.Mail {
	return application.Mail{
		DeliveryID: "0b6a3f8e-4b59-4c59-9a43-2a9d5a1c2e11", MessageID: "0b6a3f8e-4b59-4c59-9a43-2a9d5a1c2e11@formd.test",
		From: "forms@formd.test", FromName: "Contact – Café", To: "owner@example.com",
		Cc: []string{"team@example.com"}, ReplyTo: "visitor@example.org",
		Subject: "Neue Nachricht: Grüße", Text: "Name: Zoë\nMessage: a line that is long enough to be wrapped by quoted-printable encoding, with ünïcödé\n",
	}
}

func server(t *testing.T, refuse ...string) *mailtest.Server {
	t.Helper()
	s, err := mailtest.StartServer(refuse...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func smtpTo(t *testing.T, s *mailtest.Server, query string) *mail.SMTP {
	t.Helper()
	m, err := mail.NewSMTP("smtp://" + s.Addr + query)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func send(t *testing.T, m application.Mailer, msg application.Mail) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	return m.Send(ctx, msg)
}

// checkMessage checks what every sent mail must say.
func checkMessage(t *testing.T, got mailtest.Message, want application.Mail) {
	t.Helper()
	if got.Subject != want.Subject {
		t.Errorf("Subject = %q, want %q", got.Subject, want.Subject)
	}
	if got.Text != strings.ReplaceAll(want.Text, "\n", "\r\n") && got.Text != want.Text {
		t.Errorf("Text = %q, want %q", got.Text, want.Text)
	}
	if id := got.Header.Get("Message-ID"); id != "<"+want.MessageID+">" {
		t.Errorf("Message-ID = %q, want the delivery's <%s>", id, want.MessageID)
	}
	if from, err := got.Header.AddressList("From"); err != nil || len(from) != 1 || from[0].Address != want.From || from[0].Name != want.FromName {
		t.Errorf("From = %q (%v), want %s <%s>", got.Header.Get("From"), err, want.FromName, want.From)
	}
	if to := got.To(); !slices.Equal(to, []string{want.To}) {
		t.Errorf("To = %v, want %s", to, want.To)
	}
	if cc := got.Header.Get("Cc"); !strings.Contains(cc, "team@example.com") {
		t.Errorf("Cc = %q", cc)
	}
	if rt := got.Header.Get("Reply-To"); !strings.Contains(rt, want.ReplyTo) {
		t.Errorf("Reply-To = %q, want %s", rt, want.ReplyTo)
	}
	if _, err := got.Header.Date(); err != nil {
		t.Errorf("Date: %v", err)
	}
}

func TestSMTPSends(t *testing.T) {
	s := server(t)
	want := sample()
	if err := send(t, smtpTo(t, s, "?tls=none"), want); err != nil {
		t.Fatalf("Send: %v", err)
	}
	got := s.Received()
	if len(got) != 1 {
		t.Fatalf("server received %d mails, want 1", len(got))
	}
	if got[0].From != want.From || !slices.Equal(got[0].To, []string{want.To, "team@example.com"}) {
		t.Errorf("envelope %s -> %v, want %s -> [%s team@example.com]", got[0].From, got[0].To, want.From, want.To)
	}
	checkMessage(t, got[0].Message, want)
}

// Regression (security review, issue 8 item 1): a 550 refusal came back as
// an ordinary error and was retried as if it might pass; the server will
// answer the same mail the same way, so it is a permanent failure.
func TestSMTPReportsARefusedRecipientAsPermanent(t *testing.T) {
	s := server(t, "owner@example.com")
	err := send(t, smtpTo(t, s, "?tls=none"), sample())
	if !errors.Is(err, application.ErrPermanent) {
		t.Fatalf("Send to a refused recipient = %v, want a permanent failure", err)
	}
	if !strings.Contains(err.Error(), "550") {
		t.Errorf("the failure %q does not say what the server answered", err)
	}
	if n := len(s.Received()); n != 0 {
		t.Fatalf("server received %d mails", n)
	}
}

// A refused Cc is as final as a refused To: the server refuses the whole
// mail, and would again.
func TestSMTPReportsARefusedCcAsPermanent(t *testing.T) {
	s := server(t, "team@example.com")
	if err := send(t, smtpTo(t, s, "?tls=none"), sample()); !errors.Is(err, application.ErrPermanent) {
		t.Fatalf("Send with a refused Cc = %v, want a permanent failure", err)
	}
}

// A 4xx reply asks to try again later: transient, so the delivery is
// retried, and the retry goes through.
func TestSMTPReportsADeferredRecipientAsTransient(t *testing.T) {
	s := server(t)
	s.Defer("owner@example.com", 1)
	m := smtpTo(t, s, "?tls=none")
	err := send(t, m, sample())
	if err == nil || errors.Is(err, application.ErrPermanent) {
		t.Fatalf("Send to a deferred recipient = %v, want a transient failure", err)
	}
	if !strings.Contains(err.Error(), "451") {
		t.Errorf("the failure %q does not say what the server answered", err)
	}
	if err := send(t, m, sample()); err != nil {
		t.Fatalf("the retry: %v", err)
	}
	if n := len(s.Received()); n != 1 {
		t.Fatalf("server received %d mails, want the retried one", n)
	}
}

// A server that cannot be reached may be back later: transient.
func TestSMTPReportsAnUnreachableServerAsTransient(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close() // nothing listens there now
	m, err := mail.NewSMTP("smtp://" + addr + "?tls=none")
	if err != nil {
		t.Fatal(err)
	}
	if err := send(t, m, sample()); err == nil || errors.Is(err, application.ErrPermanent) {
		t.Fatalf("Send to a closed server = %v, want a transient failure", err)
	}
}

func TestSMTPRequiresTLSUnlessToldOtherwise(t *testing.T) {
	s := server(t) // offers no STARTTLS
	if err := send(t, smtpTo(t, s, ""), sample()); err == nil {
		t.Fatal("Send went out in clear text although STARTTLS is the default")
	}
	if n := len(s.Received()); n != 0 {
		t.Fatalf("server received %d mails in clear text", n)
	}
}

func TestSMTPRefusesAnUnbuildableMailPermanently(t *testing.T) {
	s := server(t)
	bad := sample()
	bad.To = "not an address"
	if err := send(t, smtpTo(t, s, "?tls=none"), bad); !errors.Is(err, application.ErrPermanent) {
		t.Fatalf("Send(bad To) = %v, want a permanent failure", err)
	}
}

func TestNewSMTPRefusesMalformedURLs(t *testing.T) {
	for _, raw := range []string{"", "mail.example.com:25", "smtps://mail.example.com", "smtp://", "smtp://mail.example.com?tls=maybe", "smtp://mail.example.com:port"} {
		if _, err := mail.NewSMTP(raw); err == nil {
			t.Errorf("NewSMTP(%q) accepted it", raw)
		}
	}
}

func TestSpoolWritesOneFilePerDelivery(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "spool")
	sp, err := mail.NewSpool(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := sample()
	if err := send(t, sp, want); err != nil {
		t.Fatal(err)
	}
	again := want
	again.Subject = "Retried"
	if err := send(t, sp, again); err != nil {
		t.Fatal(err)
	}
	escape := sample()
	escape.DeliveryID = "../outside"
	if err := send(t, sp, escape); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{want.DeliveryID + ".eml", "outside.eml"}) {
		t.Fatalf("spool holds %v; want one file per delivery, no temporary files, nothing outside", names)
	}
	raw, err := os.ReadFile(filepath.Join(dir, want.DeliveryID+".eml"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := mailtest.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	checkMessage(t, got, again) // a retried delivery replaces its file
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "outside.eml")); err == nil {
		t.Fatal("a delivery id escaped the spool folder")
	}
}

func TestSpoolRefusesAnUnbuildableMailPermanently(t *testing.T) {
	sp, err := mail.NewSpool(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	bad := sample()
	bad.From = ""
	if err := send(t, sp, bad); !errors.Is(err, application.ErrPermanent) {
		t.Fatalf("Send(no From) = %v, want a permanent failure", err)
	}
}
