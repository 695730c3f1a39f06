package application

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/formd/formd/adapters/i18n"
	"github.com/formd/formd/domain/verification"
)

// testCatalogs are formd's own message catalogs.
func testCatalogs(t *testing.T) Messages {
	t.Helper()
	catalogs, err := i18n.Load()
	if err != nil {
		t.Fatal(err)
	}
	return catalogs
}

// In English, every verification mail says exactly what formd's mails
// always said: specs and people match on these words.
func TestVerificationMailsInEnglish(t *testing.T) {
	expires := time.Date(2026, 3, 1, 12, 30, 0, 0, time.UTC)
	const link = "https://formd.example/verify/tok"
	tests := []struct {
		kind          verification.Kind
		subject, text string
	}{
		{verification.KindAccount, "Verify your formd account email", fmt.Sprintf("Welcome to formd.\n\nFollow this link to verify your account email and start creating forms:\n\n%s\n\nThe link expires at %s.\nIf you did not register, ignore this email.\n",
			link, "2026-03-01 12:30 UTC")},
		{verification.KindRecipient, "Confirm you want to receive form submissions", fmt.Sprintf("A formd form names %s as the recipient of its submissions.\n\nFollow this link to confirm and start receiving them:\n\n%s\n\nThe link expires at %s.\nIf you did not expect this, ignore this email and no submissions will be sent to you.\n",
			"inbox@example.com", link, "2026-03-01 12:30 UTC")},
		{verification.KindRouteRecipient, "Confirm you want to receive form submissions", fmt.Sprintf("A formd form's routing rules send some of its submissions to %s.\n\nFollow this link to confirm and start receiving them:\n\n%s\n\nThe link expires at %s.\nIf you did not expect this, ignore this email and no submissions will be sent to you.\n",
			"inbox@example.com", link, "2026-03-01 12:30 UTC")},
		{verification.KindPasswordReset, "Reset your formd password", "Someone asked to reset the password of the formd account of this address.\n\n" +
			"Open this link to set a new password. Every session of the account ends when you do:\n\n" + link + "\n\n" +
			"The link expires at 2026-03-01 12:30 UTC and works once.\nIf you did not ask for it, ignore this email: nothing changes.\n"},
	}
	catalogs := testCatalogs(t)
	for _, tt := range tests {
		for _, language := range []string{"", "en", "xx"} {
			v := VerificationRecord{Kind: tt.kind, Email: "inbox@example.com", ExpiresAt: expires, Language: language}
			m := verificationMail(v, "d1", "tok", MailSettings{BaseURL: "https://formd.example/"}, catalogs)
			if m.Subject != tt.subject || m.Text != tt.text {
				t.Errorf("%s in %q: %q\n%s\nwant %q\n%s", tt.kind, language, m.Subject, m.Text, tt.subject, tt.text)
			}
		}
	}
}

// Every kind of verification mail is worded in every catalog: none falls
// back to a message id or loses the link, the address or the expiry.
func TestEveryVerificationMailInEveryLanguage(t *testing.T) {
	catalogs, err := i18n.Load()
	if err != nil {
		t.Fatal(err)
	}
	expires := time.Date(2026, 3, 1, 12, 30, 0, 0, time.UTC)
	english := map[verification.Kind]Mail{}
	for _, kind := range []verification.Kind{verification.KindAccount, verification.KindRecipient, verification.KindRouteRecipient, verification.KindPasswordReset} {
		english[kind] = verificationMail(VerificationRecord{Kind: kind, Email: "inbox@example.com", ExpiresAt: expires}, "d1", "tok",
			MailSettings{BaseURL: "https://formd.example"}, catalogs)
	}
	for _, language := range catalogs.Languages() {
		for kind, en := range english {
			v := VerificationRecord{Kind: kind, Email: "inbox@example.com", ExpiresAt: expires, Language: language}
			m := verificationMail(v, "d1", "tok", MailSettings{BaseURL: "https://formd.example"}, catalogs)
			if strings.HasPrefix(m.Subject, "mail.") || strings.HasPrefix(m.Text, "mail.") || strings.Contains(m.Text, "<no value>") {
				t.Errorf("%s in %s lacks a message: %q\n%s", kind, language, m.Subject, m.Text)
			}
			if !strings.Contains(m.Text, "https://formd.example/verify/tok\n") || !strings.Contains(m.Text, "2026-03-01 12:30 UTC") {
				t.Errorf("%s in %s lacks the link or the expiry:\n%s", kind, language, m.Text)
			}
			if (kind == verification.KindRecipient || kind == verification.KindRouteRecipient) && !strings.Contains(m.Text, "inbox@example.com") {
				t.Errorf("%s in %s does not name the address:\n%s", kind, language, m.Text)
			}
			if language != "en" && (m.Subject == en.Subject || m.Text == en.Text) {
				t.Errorf("%s in %s is English: %q", kind, language, m.Subject)
			}
		}
	}
}

// A verification keeps the language of the request that asked for it, for
// its mail.
func TestARequestedVerificationKeepsTheRequestsLanguage(t *testing.T) {
	store := NewMemoryTransactor()
	ctx := t.Context()
	err := store.InTx(ctx, Metadata{}, func(tx Tx) error {
		return requestVerification(ctx, tx, &seqIDs{}, prefixTokens{}, verification.KindAccount, "acct-1", "acct-1", "ada@example.com", "fr", fixedClock{}.Now())
	})
	if err != nil {
		t.Fatal(err)
	}
	saved := store.Events()
	if len(saved) != 1 || saved[0].Event.(verification.Requested).Language != "fr" {
		t.Fatalf("saved %+v, want a verification in fr", saved)
	}
}
