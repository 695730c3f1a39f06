package eventcodec

import (
	"strings"
	"testing"

	"github.com/formd/formd/domain/form"
)

// A form's templates survive the stored shape, which leaves them out while
// the form has none, as before they existed.
func TestTemplatesRoundTrip(t *testing.T) {
	if data, _ := EncodeSettings(sampleSettings); strings.Contains(string(data), `"templates"`) {
		t.Errorf("a form without templates stored %s", data)
	}
	s := sampleSettings
	s.Templates = form.Templates{Notification: form.MessageTemplate{Subject: "From {{name}}", HTML: "<p>{{message}}</p>"},
		Autoresponder: form.MessageTemplate{Text: "Thanks, {{name}}"}}
	data, err := EncodeSettings(s)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeSettings(data)
	if err != nil || got.Templates != s.Templates {
		t.Fatalf("templates came back as %+v (%v) from %s", got.Templates, err, data)
	}
	if !strings.Contains(string(data), `"templates":{"notification":{"subject":"From {{name}}","html":"\u003cp\u003e{{message}}\u003c/p\u003e"},"autoresponder":{"text":"Thanks, {{name}}"}}`) {
		t.Errorf("templates stored as %s", data)
	}
}
