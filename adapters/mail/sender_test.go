package mail

import (
	"bytes"
	netmail "net/mail"
	"testing"

	"github.com/formd/formd/application"
)

// Security review: the sender was built as `"%s" <%s>`, so a quote or a
// backslash in a display name (a submitter's from_name, or a form's
// fromNameDefault) made every mail of the form fail, or added an address.
func TestSenderNamesStayDisplayNames(t *testing.T) {
	names := []string{
		`Bob" <evil@evil.example>, "x`,
		`Bob\`,
		`Acme "Support`,
		`Zoë Ärger, Büro`,
		`Zoë \ Büro`,
		"Line\r\nBcc: evil@evil.example",
		"",
	}
	for _, from := range []string{"forms@acme.example", "Acme Forms <forms@acme.example>"} {
		for _, name := range names {
			msg, err := build(application.Mail{DeliveryID: "d1", MessageID: "d1@formd", From: from, FromName: name,
				To: "inbox@example.test", Subject: "Hi", Text: "body\n"})
			if err != nil {
				t.Errorf("from %q, name %q: build: %v", from, name, err)
				continue
			}
			var raw bytes.Buffer
			if _, err := msg.WriteTo(&raw); err != nil {
				t.Fatal(err)
			}
			parsed, err := netmail.ReadMessage(&raw)
			if err != nil {
				t.Fatalf("name %q: the mail does not parse: %v", name, err)
			}
			if parsed.Header.Get("Bcc") != "" {
				t.Errorf("name %q added a Bcc header", name)
			}
			addrs, err := parsed.Header.AddressList("From")
			if err != nil || len(addrs) != 1 {
				t.Errorf("name %q: From %q = %v, %v; want exactly one address", name, parsed.Header.Get("From"), addrs, err)
				continue
			}
			if addrs[0].Address != "forms@acme.example" {
				t.Errorf("name %q: From address = %q, want the configured sender", name, addrs[0].Address)
			}
			want := name
			if name == "" && from != "forms@acme.example" {
				want = "Acme Forms"
			}
			if name == "Line\r\nBcc: evil@evil.example" {
				want = "Line  Bcc: evil@evil.example"
			}
			if name == `Zoë \ Büro` {
				want = "Zoë \uFF3C Büro"
			}
			if addrs[0].Name != want {
				t.Errorf("From name = %q, want %q", addrs[0].Name, want)
			}
		}
	}
}
