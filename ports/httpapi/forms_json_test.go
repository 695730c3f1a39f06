package httpapi

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/ports/portkit"
)

var (
	two           = 2
	shapeSettings = form.Settings{
		Name: "Contact", RecipientEmail: "owner@example.com", AllowedDomains: []string{"example.com"},
		SubjectDefault: "New message", FromNameDefault: "Notifications", RedirectDefault: "https://example.com/thanks",
		ReplyToMode: form.ReplyToDefault, ReplyToDefault: "team@example.com",
		Validation: form.ValidationSettings{Fields: []form.FieldRule{
			{Field: "email", Required: true, Type: "email"},
			{Field: "code", MinLength: &two, MaxLength: &two, Regex: "^[A-Z]{2}$"},
			{Field: "cv", File: &form.FileRule{Required: true, AllowedMimeTypes: []string{"application/pdf"}}},
		}},
		AllowedSenderIPs: []string{"192.0.2.1"}, UploadsEnabled: true,
		UploadLimits:  form.UploadLimits{MaxFiles: 3, MaxFileBytes: 1 << 20, AllowedMimeTypes: []string{"image/*"}},
		Autoresponder: form.Autoresponder{Enabled: true, Subject: "Thanks", Message: "We got it."},
	}
	shapeSettingsJSON = `"allowedDomains":["example.com"],"subjectDefault":"New message","fromNameDefault":"Notifications",` +
		`"redirectDefault":"https://example.com/thanks","replyToMode":"default","replyToDefault":"team@example.com",` +
		`"validation":{"fields":[{"field":"email","required":true,"type":"email"},{"field":"code","minLength":2,"maxLength":2,"regex":"^[A-Z]{2}$"},` +
		`{"field":"cv","file":{"required":true,"allowedMimeTypes":["application/pdf"]}}]},` +
		`"allowedSenderIps":["192.0.2.1"],"uploadsEnabled":true,"uploadLimits":{"maxFiles":3,"maxFileBytes":1048576,"allowedMimeTypes":["image/*"]},"autoresponder":{"enabled":true,"subject":"Thanks","message":"We got it."}`
)

// TestFormJSONIsPinned pins the Form the API sends, byte for byte: its
// types are the API's, whatever the domain's settings become.
func TestFormJSONIsPinned(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 30, 0, 0, time.UTC)
	rec := application.FormRecord{ID: "f1", AccountID: "a1", WorkspaceID: "w1", AccessKeyPrefix: "fk_12", Settings: shapeSettings,
		RecipientVerified: true, Version: 3, CreatedAt: at, UpdatedAt: at.Add(time.Hour)}
	got, err := json.Marshal(portkit.PresentForm(rec))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"f1","workspaceId":"w1","name":"Contact","recipientEmail":"owner@example.com","recipientVerified":true,` +
		`"accessKeyPrefix":"fk_12",` + shapeSettingsJSON + `,"captcha":{"provider":"none","hasSecret":false},"testMode":false,"archive":{"enabled":false},"spam":{"mode":"off","rules":{"allowIps":[],"blockIps":[],"blockEmailDomains":[],"blockDisposable":false,"blockWords":[],"blockPatterns":[],"maxLinks":0,"allowedScripts":[]}},"language":"","pages":{"success":{},"error":{}},"templates":{"notification":{},"autoresponder":{}},"version":3,"createdAt":"2026-03-01T12:30:00Z","updatedAt":"2026-03-01T13:30:00Z"}`
	if string(got) != want {
		t.Fatalf("Form JSON\n got %s\nwant %s", got, want)
	}
	// Lists the form has none of are [] (the spec's arrays), never null.
	empty, _ := json.Marshal(portkit.PresentForm(application.FormRecord{}))
	var m map[string]any
	_ = json.Unmarshal(empty, &m)
	if m["allowedDomains"] == nil || m["allowedSenderIps"] == nil {
		t.Fatalf("empty lists must be [], got %s", empty)
	}
}

// TestFormRequestDecodes checks that a CreateForm body reaches the domain as
// the same settings, and that a PATCH leaves what it does not name alone.
func TestFormRequestDecodes(t *testing.T) {
	var req formRequest
	body := `{"name":"Contact","recipientEmail":"owner@example.com",` + shapeSettingsJSON + `}`
	if err := json.Unmarshal([]byte(body), &req); err != nil {
		t.Fatal(err)
	}
	if got := req.settings(); !reflect.DeepEqual(got, shapeSettings) {
		t.Fatalf("settings\n got %#v\nwant %#v", got, shapeSettings)
	}
	var patch formRequest
	if err := json.Unmarshal([]byte(`{"replyToMode":"none","validation":{"fields":[]},"subjectDefault":null}`), &patch); err != nil {
		t.Fatal(err)
	}
	p := patch.patch()
	if p.ReplyToMode == nil || *p.ReplyToMode != form.ReplyToNone || p.Validation == nil || p.Validation.Fields == nil ||
		len(p.Validation.Fields) != 0 || p.SubjectDefault != nil || p.Name != nil || p.Autoresponder != nil {
		t.Fatalf("patch %+v: want replyToMode and an empty rule list set, everything else left alone", p)
	}
}
