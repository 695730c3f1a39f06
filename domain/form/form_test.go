package form_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/domaintest"
	"github.com/formd/formd/domain/form"
)

// formT0 is deliberately not UTC: events must record UTC times.
var formT0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.FixedZone("CET", 3600))

func formStr(s string) *string { return &s }

func formNewForm(s form.Settings) form.NewForm {
	return form.NewForm{
		ID: "form-1", AccountID: "acct-1", WorkspaceID: "ws-1",
		AccessKeyHash: "hash-1", AccessKeyPrefix: "fk_ab12",
		Settings: s,
	}
}

// formLoaded creates a form and reloads it from its events, so Changes() only
// holds what the test does next.
func formLoaded(t *testing.T) *form.Form {
	t.Helper()
	f, err := form.Create(formNewForm(form.Settings{Name: "Contact", RecipientEmail: "owner@example.com"}), form.Policy{}, formT0)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	loaded, err := form.FromHistory(f.Changes())
	if err != nil {
		t.Fatalf("FromHistory: %v", err)
	}
	return loaded
}

func TestCreateNormalizesSettings(t *testing.T) {
	tests := []struct {
		name string
		in   form.Settings
		want form.Settings
	}{
		{
			name: "defaults filled",
			in:   form.Settings{Name: "Contact", RecipientEmail: "owner@example.com"},
			want: form.Settings{
				Name: "Contact", RecipientEmail: "owner@example.com",
				AllowedDomains: []string{}, FromNameDefault: "Notifications",
				ReplyToMode: form.ReplyToSubmitter, AllowedSenderIPs: []string{},
				Validation: form.ValidationSettings{Fields: []form.FieldRule{}},
			},
		},
		{
			name: "trimmed and domains lower-cased",
			in: form.Settings{
				Name: "  Contact\t", RecipientEmail: " owner@example.com\n",
				AllowedDomains:  []string{" WWW.Example.COM. ", "Shop.Example.com"},
				SubjectDefault:  "  New message ",
				FromNameDefault: "   ",
				RedirectDefault: " https://example.com/thanks ",
				ReplyToDefault:  " reply@example.com ",
				ReplyToMode:     form.ReplyToDefault,
				AllowedSenderIPs: []string{
					" 203.0.113.7 ", "2001:db8::1",
				},
			},
			want: form.Settings{
				Name: "Contact", RecipientEmail: "owner@example.com",
				AllowedDomains:   []string{"www.example.com", "shop.example.com"},
				SubjectDefault:   "New message",
				FromNameDefault:  "Notifications",
				RedirectDefault:  "https://example.com/thanks",
				ReplyToMode:      form.ReplyToDefault,
				ReplyToDefault:   "reply@example.com",
				AllowedSenderIPs: []string{"203.0.113.7", "2001:db8::1"},
				Validation:       form.ValidationSettings{Fields: []form.FieldRule{}},
			},
		},
		{
			name: "explicit from name and reply mode kept",
			in: form.Settings{
				Name: "Contact", RecipientEmail: "owner@example.com",
				FromNameDefault: " Acme Support ", ReplyToMode: form.ReplyToNone,
				Validation: form.ValidationSettings{Fields: []form.FieldRule{{Field: "email", Type: "email"}}},
			},
			want: form.Settings{
				Name: "Contact", RecipientEmail: "owner@example.com",
				AllowedDomains: []string{}, FromNameDefault: "Acme Support",
				ReplyToMode: form.ReplyToNone, AllowedSenderIPs: []string{},
				Validation: form.ValidationSettings{Fields: []form.FieldRule{{Field: "email", Type: "email"}}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := form.Create(formNewForm(tt.in), form.Policy{}, formT0)
			if err != nil {
				t.Fatalf("Create: %v", err)
			}
			if got := f.Settings(); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Settings() =\n%#v\nwant\n%#v", got, tt.want)
			}
			// An empty list must serialise as [] rather than null.
			b, err := json.Marshal(f.Settings().Validation)
			if err != nil {
				t.Fatal(err)
			}
			if tt.in.Validation.Fields == nil && string(b) != `{"fields":[]}` {
				t.Errorf("validation JSON = %s, want {\"fields\":[]}", b)
			}
		})
	}
}

func TestCreateRecordsOneCreatedEvent(t *testing.T) {
	f, err := form.Create(formNewForm(form.Settings{Name: "Contact", RecipientEmail: "owner@example.com"}), form.Policy{}, formT0)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	if got := f.Version(); got != 0 {
		t.Errorf("Version() = %d, want 0", got)
	}
	changes := f.Changes()
	if len(changes) != 1 {
		t.Fatalf("len(Changes()) = %d, want 1", len(changes))
	}
	c, ok := changes[0].(form.Created)
	if !ok {
		t.Fatalf("event = %T, want form.Created", changes[0])
	}
	if c.EventType() != "form.created.v1" {
		t.Errorf("EventType() = %q", c.EventType())
	}
	if c.FormID != "form-1" || c.AccountID != "acct-1" || c.WorkspaceID != "ws-1" ||
		c.AccessKeyHash != "hash-1" || c.AccessKeyPrefix != "fk_ab12" {
		t.Errorf("Created ids = %+v", c)
	}
	if !reflect.DeepEqual(c.Settings, f.Settings()) {
		t.Errorf("Created.Settings = %+v, want the form's settings %+v", c.Settings, f.Settings())
	}
	if !c.At.Equal(formT0) || c.At.Location() != time.UTC {
		t.Errorf("Created.At = %v, want %v in UTC", c.At, formT0.UTC())
	}
	if f.ID() != "form-1" || f.AccountID() != "acct-1" || f.WorkspaceID() != "ws-1" ||
		f.AccessKeyHash() != "hash-1" || f.AccessKeyPrefix() != "fk_ab12" {
		t.Errorf("accessors disagree with the event")
	}
	if !f.CreatedAt().Equal(formT0) || !f.UpdatedAt().Equal(formT0) {
		t.Errorf("CreatedAt/UpdatedAt = %v/%v, want %v", f.CreatedAt(), f.UpdatedAt(), formT0)
	}
	if f.RecipientVerified() {
		t.Error("a new form's recipient must start unverified")
	}

	loaded, err := form.FromHistory(changes)
	if err != nil {
		t.Fatalf("FromHistory: %v", err)
	}
	if got := loaded.Version(); got != 1 {
		t.Errorf("loaded Version() = %d, want 1", got)
	}
	if got := len(loaded.Changes()); got != 0 {
		t.Errorf("loaded len(Changes()) = %d, want 0", got)
	}
	if loaded.ID() != "form-1" || !reflect.DeepEqual(loaded.Settings(), f.Settings()) {
		t.Errorf("loaded form differs: id %q settings %+v", loaded.ID(), loaded.Settings())
	}
}

func TestCreateRejects(t *testing.T) {
	valid := form.Settings{Name: "Contact", RecipientEmail: "owner@example.com"}
	tests := []struct {
		name      string
		mutate    func(*form.NewForm)
		wantField string // "" means a plain (non-input) error
	}{
		{name: "no id", mutate: func(n *form.NewForm) { n.ID = "" }},
		{name: "no account", mutate: func(n *form.NewForm) { n.AccountID = "" }},
		{name: "no workspace", mutate: func(n *form.NewForm) { n.WorkspaceID = "" }},
		{name: "no access key hash", mutate: func(n *form.NewForm) { n.AccessKeyHash = "" }},
		{name: "blank name", mutate: func(n *form.NewForm) { n.Settings.Name = "   " }, wantField: "name"},
		{name: "bad recipient", mutate: func(n *form.NewForm) { n.Settings.RecipientEmail = "owner" }, wantField: "recipientEmail"},
		{name: "wildcard without policy", mutate: func(n *form.NewForm) { n.Settings.AllowedDomains = []string{"*.example.com"} }, wantField: "allowedDomains[0]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := formNewForm(valid)
			tt.mutate(&n)
			f, err := form.Create(n, form.Policy{}, formT0)
			domaintest.ExpectRefusal(t, err, tt.wantField)
			if f != nil {
				t.Errorf("Create returned a form with its error")
			}
		})
	}
}

func TestCreateWildcardWithPolicy(t *testing.T) {
	f, err := form.Create(formNewForm(form.Settings{
		Name: "Contact", RecipientEmail: "owner@example.com",
		AllowedDomains: []string{"*.Example.com"},
	}), form.Policy{WildcardDomains: true}, formT0)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	if got := f.Settings().AllowedDomains; !reflect.DeepEqual(got, []string{"*.example.com"}) {
		t.Errorf("AllowedDomains = %q", got)
	}
}

func TestFromHistoryOfNothingIsNotFound(t *testing.T) {
	for _, events := range [][]form.Event{nil, {}} {
		f, err := form.FromHistory(events)
		if !errors.Is(err, domain.ErrNotFound) || f != nil {
			t.Errorf("FromHistory(%v) = %v, %v; want nil, ErrNotFound", events, f, err)
		}
	}
}

func TestChangeSettingsRecordsChangedFields(t *testing.T) {
	mode := form.ReplyToDefault
	uploads := true
	type change struct{ field, from, to string }
	tests := []struct {
		name  string
		patch form.Patch
		want  []change
	}{
		{
			name:  "name",
			patch: form.Patch{Name: formStr("  Sales ")},
			want:  []change{{"name", `"Contact"`, `"Sales"`}},
		},
		{
			name:  "recipient",
			patch: form.Patch{RecipientEmail: formStr("new@example.com")},
			want:  []change{{"recipientEmail", `"owner@example.com"`, `"new@example.com"`}},
		},
		{
			name:  "two fields in display order",
			patch: form.Patch{SubjectDefault: formStr("Hi"), Name: formStr("Sales")},
			want: []change{
				{"name", `"Contact"`, `"Sales"`},
				{"subjectDefault", `""`, `"Hi"`},
			},
		},
		{
			name:  "allowed domains normalised",
			patch: form.Patch{AllowedDomains: &[]string{" Example.COM. "}},
			want:  []change{{"allowedDomains", `[]`, `["example.com"]`}},
		},
		{
			name:  "from name",
			patch: form.Patch{FromNameDefault: formStr("Acme")},
			want:  []change{{"fromNameDefault", `"Notifications"`, `"Acme"`}},
		},
		{
			name:  "redirect",
			patch: form.Patch{RedirectDefault: formStr("https://example.com/thanks")},
			want:  []change{{"redirectDefault", `""`, `"https://example.com/thanks"`}},
		},
		{
			name:  "reply-to mode and default",
			patch: form.Patch{ReplyToMode: &mode, ReplyToDefault: formStr("reply@example.com")},
			want: []change{
				{"replyToMode", `"submitter"`, `"default"`},
				{"replyToDefault", `""`, `"reply@example.com"`},
			},
		},
		{
			name:  "validation",
			patch: form.Patch{Validation: &form.ValidationSettings{Fields: []form.FieldRule{{Field: "email", Required: true}}}},
			want:  []change{{"validation", `{"fields":[]}`, `{"fields":[{"field":"email","required":true}]}`}},
		},
		{
			name:  "sender ips trimmed",
			patch: form.Patch{AllowedSenderIPs: &[]string{" 203.0.113.7 "}},
			want:  []change{{"allowedSenderIps", `[]`, `["203.0.113.7"]`}},
		},
		{
			name:  "uploads",
			patch: form.Patch{UploadsEnabled: &uploads},
			want:  []change{{"uploadsEnabled", `false`, `true`}},
		},
		{
			name:  "upload limits",
			patch: form.Patch{UploadLimits: &form.UploadLimits{MaxFiles: 2, MaxFileBytes: 1 << 20, AllowedMimeTypes: []string{"image/*"}}},
			want: []change{{"uploadLimits", `{"maxFiles":0,"maxFileBytes":0,"allowedMimeTypes":null}`,
				`{"maxFiles":2,"maxFileBytes":1048576,"allowedMimeTypes":["image/*"]}`}},
		},
		{
			name:  "autoresponder",
			patch: form.Patch{Autoresponder: &form.Autoresponder{Enabled: true, Subject: "Thanks"}},
			want:  []change{{"autoresponder", `{"enabled":false}`, `{"enabled":true,"subject":"Thanks"}`}},
		},
	}
	later := formT0.Add(time.Hour)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := formLoaded(t)
			if err := f.ChangeSettings(tt.patch, form.Policy{Uploads: true}, later); err != nil {
				t.Fatalf("ChangeSettings: %v", err)
			}
			if f.Version() != 1 {
				t.Errorf("Version() = %d, want 1", f.Version())
			}
			if len(f.Changes()) != 1 {
				t.Fatalf("len(Changes()) = %d, want 1", len(f.Changes()))
			}
			ev, ok := f.Changes()[0].(form.SettingsChanged)
			if !ok {
				t.Fatalf("event = %T, want form.SettingsChanged", f.Changes()[0])
			}
			if ev.EventType() != "form.settings_changed.v1" {
				t.Errorf("EventType() = %q", ev.EventType())
			}
			var got []change
			for _, c := range ev.Changes {
				got = append(got, change{c.Field, string(c.From), string(c.To)})
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Changes =\n%q\nwant\n%q", got, tt.want)
			}
			if !reflect.DeepEqual(ev.Settings, f.Settings()) {
				t.Errorf("event settings %+v differ from the form's %+v", ev.Settings, f.Settings())
			}
			if !ev.At.Equal(later) || ev.At.Location() != time.UTC {
				t.Errorf("At = %v, want %v in UTC", ev.At, later.UTC())
			}
			if !f.UpdatedAt().Equal(later) || !f.CreatedAt().Equal(formT0) {
				t.Errorf("CreatedAt/UpdatedAt = %v/%v", f.CreatedAt(), f.UpdatedAt())
			}
		})
	}
}

func TestChangeSettingsWithoutChangeRecordsNothing(t *testing.T) {
	submitter := form.ReplyToSubmitter
	empty := form.ReplyToMode("")
	uploads := false
	tests := []struct {
		name  string
		patch form.Patch
	}{
		{name: "empty patch", patch: form.Patch{}},
		{name: "same name", patch: form.Patch{Name: formStr("Contact")}},
		{name: "same name padded", patch: form.Patch{Name: formStr("  Contact ")}},
		{name: "same recipient", patch: form.Patch{RecipientEmail: formStr("owner@example.com")}},
		{name: "empty domain list", patch: form.Patch{AllowedDomains: &[]string{}}},
		{name: "nil domain list", patch: form.Patch{AllowedDomains: new([]string)}},
		{name: "blank from name is the default", patch: form.Patch{FromNameDefault: formStr(" ")}},
		{name: "same reply mode", patch: form.Patch{ReplyToMode: &submitter}},
		{name: "empty reply mode is the default", patch: form.Patch{ReplyToMode: &empty}},
		{name: "nil validation fields", patch: form.Patch{Validation: &form.ValidationSettings{}}},
		{name: "same uploads", patch: form.Patch{UploadsEnabled: &uploads}},
		{name: "same autoresponder", patch: form.Patch{Autoresponder: &form.Autoresponder{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := formLoaded(t)
			before := f.Settings()
			if err := f.ChangeSettings(tt.patch, form.Policy{}, formT0.Add(time.Hour)); err != nil {
				t.Fatalf("ChangeSettings: %v", err)
			}
			if n := len(f.Changes()); n != 0 {
				t.Errorf("recorded %d events (%+v), want none", n, f.Changes())
			}
			if !reflect.DeepEqual(f.Settings(), before) {
				t.Errorf("settings changed to %+v", f.Settings())
			}
			if !f.UpdatedAt().Equal(formT0) {
				t.Errorf("UpdatedAt moved to %v", f.UpdatedAt())
			}
		})
	}
}

func TestChangeSettingsRejectsInvalidPatch(t *testing.T) {
	bad := form.ReplyToMode("always")
	tests := []struct {
		name      string
		patch     form.Patch
		policy    form.Policy
		wantField string
	}{
		{name: "blank name", patch: form.Patch{Name: formStr(" ")}, wantField: "name"},
		{name: "bad recipient", patch: form.Patch{RecipientEmail: formStr("nobody")}, wantField: "recipientEmail"},
		{name: "wildcard without policy", patch: form.Patch{AllowedDomains: &[]string{"example.com", "*.example.com"}}, wantField: "allowedDomains[1]"},
		{name: "unknown reply mode", patch: form.Patch{ReplyToMode: &bad}, wantField: "replyToMode"},
		{name: "http redirect", patch: form.Patch{RedirectDefault: formStr("http://example.com")}, wantField: "redirectDefault"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := formLoaded(t)
			before := f.Settings()
			err := f.ChangeSettings(tt.patch, tt.policy, formT0.Add(time.Hour))
			if got := domaintest.InvalidField(t, err); got != tt.wantField {
				t.Errorf("Field = %q, want %q", got, tt.wantField)
			}
			if len(f.Changes()) != 0 {
				t.Errorf("recorded %+v after a rejected patch", f.Changes())
			}
			if !reflect.DeepEqual(f.Settings(), before) {
				t.Errorf("settings changed to %+v after a rejected patch", f.Settings())
			}
		})
	}
}

func TestChangeSettingsRecipientReset(t *testing.T) {
	tests := []struct {
		name         string
		patch        form.Patch
		wantReset    bool
		wantVerified bool
	}{
		{name: "new recipient", patch: form.Patch{RecipientEmail: formStr("new@example.com")}, wantReset: true, wantVerified: false},
		{name: "new recipient and name", patch: form.Patch{Name: formStr("Sales"), RecipientEmail: formStr("new@example.com")}, wantReset: true, wantVerified: false},
		{name: "other setting", patch: form.Patch{Name: formStr("Sales")}, wantReset: false, wantVerified: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := formLoaded(t)
			if err := f.MarkRecipientVerified("owner@example.com", formT0); err != nil {
				t.Fatalf("MarkRecipientVerified: %v", err)
			}
			if err := f.ChangeSettings(tt.patch, form.Policy{}, formT0.Add(time.Hour)); err != nil {
				t.Fatalf("ChangeSettings: %v", err)
			}
			if len(f.Changes()) != 2 {
				t.Fatalf("Changes() = %+v, want RecipientVerified then SettingsChanged", f.Changes())
			}
			ev, ok := f.Changes()[1].(form.SettingsChanged)
			if !ok {
				t.Fatalf("event = %T, want form.SettingsChanged", f.Changes()[1])
			}
			if ev.RecipientReset != tt.wantReset {
				t.Errorf("RecipientReset = %v, want %v", ev.RecipientReset, tt.wantReset)
			}
			if f.RecipientVerified() != tt.wantVerified {
				t.Errorf("RecipientVerified() = %v, want %v", f.RecipientVerified(), tt.wantVerified)
			}
			// Replaying the same events must give the same answer.
			history := append([]form.Event{form.Created{FormID: "form-1", Settings: form.Settings{RecipientEmail: "owner@example.com"}}}, f.Changes()...)
			replayed, err := form.FromHistory(history)
			if err != nil {
				t.Fatal(err)
			}
			if replayed.RecipientVerified() != tt.wantVerified {
				t.Errorf("replayed RecipientVerified() = %v, want %v", replayed.RecipientVerified(), tt.wantVerified)
			}
			if replayed.Version() != 3 {
				t.Errorf("replayed Version() = %d, want 3", replayed.Version())
			}
		})
	}
}

func TestMarkRecipientVerified(t *testing.T) {
	tests := []struct {
		name       string
		email      string
		wantErr    bool
		wantEvents int
	}{
		{name: "current recipient", email: "owner@example.com", wantEvents: 1},
		{name: "other address", email: "other@example.com", wantErr: true},
		{name: "different case", email: "Owner@example.com", wantErr: true},
		{name: "empty", email: "", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := formLoaded(t)
			at := formT0.Add(time.Minute)
			err := f.MarkRecipientVerified(tt.email, at)
			if tt.wantErr {
				var fe *domain.ForbiddenError
				if !errors.As(err, &fe) {
					t.Fatalf("error = %v (%T), want *domain.ForbiddenError", err, err)
				}
				if fe.Message == "" {
					t.Error("ForbiddenError has no message")
				}
				if f.RecipientVerified() || len(f.Changes()) != 0 {
					t.Errorf("refused link changed the form: verified=%v changes=%+v", f.RecipientVerified(), f.Changes())
				}
				return
			}
			if err != nil {
				t.Fatalf("MarkRecipientVerified: %v", err)
			}
			if !f.RecipientVerified() {
				t.Error("RecipientVerified() = false")
			}
			want := []form.Event{form.RecipientVerified{RecipientEmail: tt.email, At: at.UTC()}}
			if !reflect.DeepEqual(f.Changes(), want) {
				t.Errorf("Changes() = %+v, want %+v", f.Changes(), want)
			}
			if f.Changes()[0].EventType() != "form.recipient_verified.v1" {
				t.Errorf("EventType() = %q", f.Changes()[0].EventType())
			}
			if !f.UpdatedAt().Equal(at) {
				t.Errorf("UpdatedAt() = %v, want %v", f.UpdatedAt(), at)
			}
			// Following the link again is idempotent.
			if err := f.MarkRecipientVerified(tt.email, at.Add(time.Hour)); err != nil {
				t.Fatalf("second MarkRecipientVerified: %v", err)
			}
			if len(f.Changes()) != tt.wantEvents {
				t.Errorf("after a second call len(Changes()) = %d, want %d", len(f.Changes()), tt.wantEvents)
			}
			if !f.UpdatedAt().Equal(at) {
				t.Errorf("second call moved UpdatedAt to %v", f.UpdatedAt())
			}
		})
	}
}

func TestMarkRecipientVerifiedAfterReload(t *testing.T) {
	f := formLoaded(t)
	if err := f.MarkRecipientVerified("owner@example.com", formT0); err != nil {
		t.Fatal(err)
	}
	history := append([]form.Event{form.Created{FormID: "form-1", Settings: form.Settings{RecipientEmail: "owner@example.com"}}}, f.Changes()...)
	loaded, err := form.FromHistory(history)
	if err != nil {
		t.Fatal(err)
	}
	if !loaded.RecipientVerified() {
		t.Fatal("reloaded form lost its verification")
	}
	if err := loaded.MarkRecipientVerified("owner@example.com", formT0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if len(loaded.Changes()) != 0 {
		t.Errorf("already verified recipient recorded %+v", loaded.Changes())
	}
}

func TestMarkRecipientVerifiedRefusesOldRecipient(t *testing.T) {
	f := formLoaded(t)
	if err := f.ChangeSettings(form.Patch{RecipientEmail: formStr("new@example.com")}, form.Policy{}, formT0); err != nil {
		t.Fatal(err)
	}
	var fe *domain.ForbiddenError
	if err := f.MarkRecipientVerified("owner@example.com", formT0); !errors.As(err, &fe) {
		t.Errorf("old recipient's link: error = %v, want *domain.ForbiddenError", err)
	}
	if err := f.MarkRecipientVerified("new@example.com", formT0); err != nil {
		t.Errorf("new recipient's link: %v", err)
	}
	if !f.RecipientVerified() {
		t.Error("new recipient not verified")
	}
}

func TestEventTypes(t *testing.T) {
	tests := []struct {
		event form.Event
		want  string
	}{
		// Literals, not the constants: these names are in stored events.
		{form.Created{}, "form.created.v1"},
		{form.SettingsChanged{}, "form.settings_changed.v1"},
		{form.RecipientVerified{}, "form.recipient_verified.v1"},
		{form.SettingsRestored{}, "form.settings_restored.v1"},
	}
	seen := map[string]bool{}
	for _, tt := range tests {
		if got := tt.event.EventType(); got != tt.want {
			t.Errorf("%T.EventType() = %q, want %q", tt.event, got, tt.want)
		}
		if seen[tt.want] {
			t.Errorf("event type %q used twice", tt.want)
		}
		seen[tt.want] = true
	}
}

func TestTestModeIsInTheAuditTrailOnlyWhenItChanges(t *testing.T) {
	base := form.Settings{Name: "Contact", RecipientEmail: "inbox@example.com"}.Normalize()
	on := base
	on.TestMode = true
	for _, c := range form.Diff(form.Settings{}, base, true) {
		if c.Field == "testMode" {
			t.Fatalf("a form created with test mode off lists it: %+v", c)
		}
	}
	changes := form.Diff(base, on, false)
	if len(changes) != 1 || changes[0].Field != "testMode" || string(changes[0].To) != "true" {
		t.Fatalf("switching it on: %+v", changes)
	}
	if back := form.Diff(on, base, false); len(back) != 1 || back[0].Field != "testMode" || back[0].To != nil {
		t.Fatalf("switching it off: %+v", back)
	}
}
