package eventcodec

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/submission"
	"github.com/formd/formd/domain/verification"
)

const domainModule = "github.com/formd/formd/domain/"

// TestEveryDomainEventHasAStoredShape reads the domain's source for every type
// with an EventType method and checks the codec maps each one, so a new event
// fails here instead of failing to append at run time.
func TestEveryDomainEventHasAStoredShape(t *testing.T) {
	var declared []string
	root := filepath.Join("..", "..", "..", "domain")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv != nil && fn.Name.Name == "EventType" {
				if id, ok := fn.Recv.List[0].Type.(*ast.Ident); ok {
					declared = append(declared, domainModule+filepath.ToSlash(rel)+"."+id.Name)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var mapped []string
	for rt := range byDomain {
		if strings.HasPrefix(rt.PkgPath(), domainModule) {
			mapped = append(mapped, rt.PkgPath()+"."+rt.Name())
		}
	}
	slices.Sort(declared)
	slices.Sort(mapped)
	if len(declared) < 10 {
		t.Fatalf("found only %d domain events; the source walk is broken", len(declared))
	}
	if !slices.Equal(declared, mapped) {
		t.Fatalf("domain events and stored shapes differ:\ndeclared %v\nmapped   %v", declared, mapped)
	}
}

var (
	at    = time.Date(2026, 3, 1, 12, 30, 0, 0, time.UTC)
	later = at.Add(30 * 24 * time.Hour)
	two   = 2
)

var sampleSettings = form.Settings{
	Name: "Contact", RecipientEmail: "owner@example.com", AllowedDomains: []string{"example.com"},
	SubjectDefault: "New message", FromNameDefault: "Notifications", RedirectDefault: "https://example.com/thanks",
	ReplyToMode: form.ReplyToDefault, ReplyToDefault: "team@example.com",
	Validation: form.ValidationSettings{Fields: []form.FieldRule{
		{Field: "email", Required: true, Type: "email"},
		{Field: "code", MinLength: &two, MaxLength: &two, Regex: "^[A-Z]{2}$"},
		{Field: "cv", File: &form.FileRule{Required: true, AllowedMimeTypes: []string{"application/pdf"}}},
	}},
	AllowedSenderIPs: []string{"192.0.2.1"}, UploadsEnabled: true,
	Autoresponder: form.Autoresponder{Enabled: true, Subject: "Thanks", Message: "We got it."},
}

const sampleSettingsJSON = `{"name":"Contact","recipientEmail":"owner@example.com","allowedDomains":["example.com"],` +
	`"subjectDefault":"New message","fromNameDefault":"Notifications","redirectDefault":"https://example.com/thanks",` +
	`"replyToMode":"default","replyToDefault":"team@example.com","validation":{"fields":[` +
	`{"field":"email","required":true,"type":"email"},{"field":"code","minLength":2,"maxLength":2,"regex":"^[A-Z]{2}$"},` +
	`{"field":"cv","file":{"required":true,"allowedMimeTypes":["application/pdf"]}}]},` +
	`"allowedSenderIps":["192.0.2.1"],"uploadsEnabled":true,"autoresponder":{"enabled":true,"subject":"Thanks","message":"We got it."}}`

// captchaSettings is sampleSettings with a recaptcha_v3 captcha: the stored
// shape names its sealed secret by id, never the secret.
var captchaSettings = func() form.Settings {
	s := sampleSettings
	s.Captcha = form.Captcha{Provider: form.CaptchaRecaptchaV3, SiteKey: "6LcSITE", MinScore: 0, SecretID: "c1"}
	return s
}()

var captchaSettingsJSON = sampleSettingsJSON[:len(sampleSettingsJSON)-1] +
	`,"captcha":{"provider":"recaptcha_v3","siteKey":"6LcSITE","minScore":0,"secretId":"c1"}}`

// uploadSettings is sampleSettings with upload limits: stored only when the
// form sets some, so events without them keep the defaults.
var uploadSettings = func() form.Settings {
	s := sampleSettings
	s.UploadLimits = form.UploadLimits{MaxFiles: 3, MaxFileBytes: 1 << 20, AllowedMimeTypes: []string{"image/*", "application/pdf"}}
	return s
}()

var uploadSettingsJSON = strings.Replace(sampleSettingsJSON, `"uploadsEnabled":true,`,
	`"uploadsEnabled":true,"uploadLimits":{"maxFiles":3,"maxFileBytes":1048576,"allowedMimeTypes":["image/*","application/pdf"]},`, 1)

// storedShapes pins every version-1 shape by a literal: events already in
// databases look like this, whatever the domain structs become.
var storedShapes = []struct {
	event Event
	json  string
}{
	{form.Created{FormID: "f1", AccountID: "a1", WorkspaceID: "w1", AccessKeyHash: "ab", AccessKeyPrefix: "fk_12", Settings: sampleSettings, At: at},
		`{"formId":"f1","accountId":"a1","workspaceId":"w1","accessKeyHash":"ab","accessKeyPrefix":"fk_12","settings":` + sampleSettingsJSON + `,"at":"2026-03-01T12:30:00Z"}`},
	{form.SettingsChanged{Changes: []form.Change{{Field: "name", From: json.RawMessage(`"Old"`), To: json.RawMessage(`"Contact"`)}}, Settings: sampleSettings, At: at, RecipientReset: true},
		`{"changes":[{"field":"name","from":"Old","to":"Contact"}],"settings":` + sampleSettingsJSON + `,"at":"2026-03-01T12:30:00Z","recipientReset":true}`},
	// A captcha change: each setting named captcha.<field>, the secret hidden.
	{form.SettingsChanged{Changes: []form.Change{{Field: "captcha.secret", From: json.RawMessage(`null`), To: json.RawMessage(`"(hidden)"`)}},
		Settings: captchaSettings, At: at},
		`{"changes":[{"field":"captcha.secret","from":null,"to":"(hidden)"}],"settings":` + captchaSettingsJSON + `,"at":"2026-03-01T12:30:00Z"}`},
	// Upload limits: set by a form, absent while it keeps the defaults.
	{form.SettingsChanged{Changes: []form.Change{{Field: "uploadLimits", From: json.RawMessage(`{"maxFiles":0,"maxFileBytes":0,"allowedMimeTypes":null}`),
		To: json.RawMessage(`{"maxFiles":3,"maxFileBytes":1048576,"allowedMimeTypes":["image/*","application/pdf"]}`)}}, Settings: uploadSettings, At: at},
		`{"changes":[{"field":"uploadLimits","from":{"maxFiles":0,"maxFileBytes":0,"allowedMimeTypes":null},` +
			`"to":{"maxFiles":3,"maxFileBytes":1048576,"allowedMimeTypes":["image/*","application/pdf"]}}],"settings":` + uploadSettingsJSON + `,"at":"2026-03-01T12:30:00Z"}`},
	// A restore: a settings change naming the version it brought back.
	{form.SettingsRestored{RestoredVersion: 2, Changes: []form.Change{{Field: "name", From: json.RawMessage(`"New"`), To: json.RawMessage(`"Contact"`)}}, Settings: sampleSettings, At: at},
		`{"restoredVersion":2,"changes":[{"field":"name","from":"New","to":"Contact"}],"settings":` + sampleSettingsJSON + `,"at":"2026-03-01T12:30:00Z"}`},
	{form.RecipientVerified{RecipientEmail: "owner@example.com", At: at},
		`{"recipientEmail":"owner@example.com","at":"2026-03-01T12:30:00Z"}`},
	{form.RouteRecipientVerified{RecipientEmail: "sales@example.com", At: at},
		`{"recipientEmail":"sales@example.com","at":"2026-03-01T12:30:00Z"}`},
	{form.IntegrationConfigured{Changes: []form.Change{{Field: "integrations.webhook.enabled", From: json.RawMessage(`false`), To: json.RawMessage(`true`)}},
		Integration: form.Integration{Type: form.IntegrationWebhook, Enabled: true, TargetURL: "https://example.com/hook", CreatedAt: at, UpdatedAt: at.Add(time.Hour)}, At: at.Add(time.Hour)},
		`{"changes":[{"field":"integrations.webhook.enabled","from":false,"to":true}],"integration":{"type":"webhook","enabled":true,"targetUrl":"https://example.com/hook",` +
			`"createdAt":"2026-03-01T12:30:00Z","updatedAt":"2026-03-01T13:30:00Z"},"at":"2026-03-01T13:30:00Z"}`},
	{form.IntegrationConfigured{Integration: form.Integration{Type: form.IntegrationGoogleSheets, SpreadsheetID: "1BxiMVs0XRA5", SheetName: "Leads", CreatedAt: at, UpdatedAt: at}, At: at},
		`{"changes":[],"integration":{"type":"google_sheets","enabled":false,"spreadsheetId":"1BxiMVs0XRA5","sheetName":"Leads",` +
			`"createdAt":"2026-03-01T12:30:00Z","updatedAt":"2026-03-01T12:30:00Z"},"at":"2026-03-01T12:30:00Z"}`},
	{form.IntegrationConfigured{Integration: form.Integration{Type: form.IntegrationTelegram, Enabled: true, ChatID: "-100123", CreatedAt: at, UpdatedAt: at}, At: at},
		`{"changes":[],"integration":{"type":"telegram","enabled":true,"chatId":"-100123",` +
			`"createdAt":"2026-03-01T12:30:00Z","updatedAt":"2026-03-01T12:30:00Z"},"at":"2026-03-01T12:30:00Z"}`},
	{form.GoogleSheetProven{SpreadsheetID: "1AbCdEfGhIjK", At: at}, `{"spreadsheetId":"1AbCdEfGhIjK","at":"2026-03-01T12:30:00Z"}`},
	{form.TelegramChatConnected{ChatID: "-1001234567890", At: at}, `{"chatId":"-1001234567890","at":"2026-03-01T12:30:00Z"}`},
	// An erasure: by id names the submission, by email only the address's hash.
	{form.SubmissionsErased{Count: 1, By: form.ErasedByID, SubmissionID: "s1", At: at},
		`{"count":1,"by":"id","submissionId":"s1","at":"2026-03-01T12:30:00Z"}`},
	{form.SubmissionsErased{Count: 3, By: form.ErasedByEmail, EmailHash: "0a1b", At: at},
		`{"count":3,"by":"email","emailHash":"0a1b","at":"2026-03-01T12:30:00Z"}`},
	{form.SpamReviewed{SubmissionID: "s1", Verdict: form.ReviewedNotSpam, Learned: true, At: at},
		`{"submissionId":"s1","verdict":"not_spam","learned":true,"at":"2026-03-01T12:30:00Z"}`},
	{form.WebhookSecretIssued{SecretID: "s1", SecretPrefix: "whsec_abcd", At: at},
		`{"secretId":"s1","secretPrefix":"whsec_abcd","at":"2026-03-01T12:30:00Z"}`},
	{form.WebhookSecretIssued{SecretID: "s2", SecretPrefix: "whsec_efgh", PreviousSecretPrefix: "whsec_abcd", PreviousExpiresAt: at.Add(24 * time.Hour), At: at},
		`{"secretId":"s2","secretPrefix":"whsec_efgh","previousSecretPrefix":"whsec_abcd","previousExpiresAt":"2026-03-02T12:30:00Z","at":"2026-03-01T12:30:00Z"}`},
	{form.IntegrationConfigured{Integration: form.Integration{Type: form.IntegrationWebhook, TargetURL: "https://example.com/hook", SecretPrefix: "whsec_abcd", CreatedAt: at, UpdatedAt: at}, At: at},
		`{"changes":[],"integration":{"type":"webhook","enabled":false,"targetUrl":"https://example.com/hook","secretPrefix":"whsec_abcd",` +
			`"createdAt":"2026-03-01T12:30:00Z","updatedAt":"2026-03-01T12:30:00Z"},"at":"2026-03-01T12:30:00Z"}`},
	{account.Registered{AccountID: "a1", Email: "me@example.com", Name: "Me", PasswordHash: "$argon2id$x", WorkspaceID: "w1", WorkspaceName: "Default", At: at},
		`{"accountId":"a1","email":"me@example.com","name":"Me","passwordHash":"$argon2id$x","workspaceId":"w1","workspaceName":"Default","at":"2026-03-01T12:30:00Z"}`},
	{account.EmailVerified{At: at}, `{"at":"2026-03-01T12:30:00Z"}`},
	{account.WorkspaceCreated{WorkspaceID: "w2", Name: "Side", At: at},
		`{"workspaceId":"w2","name":"Side","at":"2026-03-01T12:30:00Z"}`},
	{account.FeatureGranted{Feature: "cc_recipients", At: at}, `{"feature":"cc_recipients","at":"2026-03-01T12:30:00Z"}`},
	{account.PasswordReset{PasswordHash: "$argon2id$y", At: at}, `{"passwordHash":"$argon2id$y","at":"2026-03-01T12:30:00Z"}`},
	{account.PlanChanged{Plan: account.PlanPro, Previous: account.PlanFree, At: at},
		`{"plan":"pro","previous":"free","at":"2026-03-01T12:30:00Z"}`},
	{account.FeatureRevoked{Feature: "cc_recipients", At: at}, `{"feature":"cc_recipients","at":"2026-03-01T12:30:00Z"}`},
	{account.TokenCreated{TokenID: "t1", WorkspaceID: "w1", Name: "CI", Prefix: "fdw_abcdefgh", TokenHash: "ef",
		Scopes: []account.Scope{account.ScopeFormsRead, account.ScopeFormsWrite}, ExpiresAt: &later, At: at},
		`{"tokenId":"t1","workspaceId":"w1","name":"CI","prefix":"fdw_abcdefgh","tokenHash":"ef","scopes":["forms:read","forms:write"],"expiresAt":"2026-03-31T12:30:00Z","at":"2026-03-01T12:30:00Z"}`},
	// A token that never expires.
	{account.TokenCreated{TokenID: "t2", WorkspaceID: "w1", Name: "Deploys", Prefix: "fdw_ijklmnop", TokenHash: "01",
		Scopes: []account.Scope{account.ScopeSubmissionsTest}, At: at},
		`{"tokenId":"t2","workspaceId":"w1","name":"Deploys","prefix":"fdw_ijklmnop","tokenHash":"01","scopes":["submissions:test"],"at":"2026-03-01T12:30:00Z"}`},
	{account.TokenRevoked{TokenID: "t1", At: at}, `{"tokenId":"t1","at":"2026-03-01T12:30:00Z"}`},
	{verification.Requested{VerificationID: "v1", Kind: verification.KindRecipient, SubjectID: "f1", AccountID: "a1", Email: "owner@example.com", TokenHash: "cd", DeliveryID: "d1", ExpiresAt: at.Add(verification.Lifetime), At: at},
		`{"verificationId":"v1","kind":"recipient","subjectId":"f1","accountId":"a1","email":"owner@example.com","tokenHash":"cd","deliveryId":"d1","expiresAt":"2026-03-04T12:30:00Z","at":"2026-03-01T12:30:00Z"}`},
	{verification.Completed{At: at}, `{"at":"2026-03-01T12:30:00Z"}`},
	{submission.Accepted{SubmissionID: "s1", FormID: "f1", RequestID: "r1", FieldNames: []string{"email", "message"}, ValueHashes: map[string]string{"message": "h2", "email": "h1"}, Deliveries: []submission.DeliveryRef{{ID: "d1", Kind: delivery.KindEmail}}, At: at},
		`{"submissionId":"s1","formId":"f1","requestId":"r1","fieldNames":["email","message"],"valueHashes":{"email":"h1","message":"h2"},"deliveries":[{"id":"d1","kind":"email"}],"at":"2026-03-01T12:30:00Z"}`},
	// Since submission.accepted queues its deliveries itself, each names its
	// target as delivery.queued did.
	{submission.Accepted{SubmissionID: "s2", FormID: "f1", RequestID: "r2", FieldNames: []string{"email"}, ValueHashes: map[string]string{"email": "h1"}, Deliveries: []submission.DeliveryRef{{ID: "d1", Kind: delivery.KindEmail, Target: "example.com"}, {ID: "d2", Kind: delivery.KindWebhook, Target: "hooks.example.com"}}, At: at},
		`{"submissionId":"s2","formId":"f1","requestId":"r2","fieldNames":["email"],"valueHashes":{"email":"h1"},"deliveries":[{"id":"d1","kind":"email","target":"example.com"},{"id":"d2","kind":"webhook","target":"hooks.example.com"}],"at":"2026-03-01T12:30:00Z"}`},
	{submission.Redacted{At: at}, `{"at":"2026-03-01T12:30:00Z"}`},
	// A submission the spam gate held: its deliveries are planned, queued
	// only when the owner releases it.
	{submission.Accepted{SubmissionID: "s3", FormID: "f1", RequestID: "r3", FieldNames: []string{"email"}, ValueHashes: map[string]string{"email": "h1"}, Deliveries: []submission.DeliveryRef{{ID: "d3", Kind: delivery.KindEmail, Target: "example.com"}}, SpamCheck: submission.SpamCheckChecked, Held: true, At: at},
		`{"submissionId":"s3","formId":"f1","requestId":"r3","fieldNames":["email"],"valueHashes":{"email":"h1"},"deliveries":[{"id":"d3","kind":"email","target":"example.com"}],"spamCheck":"checked","held":true,"at":"2026-03-01T12:30:00Z"}`},
	{delivery.Queued{DeliveryID: "d1", SubmissionID: "s1", FormID: "f1", Kind: delivery.KindWebhook, At: at},
		`{"deliveryId":"d1","submissionId":"s1","formId":"f1","kind":"webhook","at":"2026-03-01T12:30:00Z"}`},
	// A verification mail's delivery: no submission, and for an account's no
	// form either; the verification it mails is named instead.
	{delivery.Queued{DeliveryID: "d2", VerificationID: "v1", Kind: delivery.KindAccountVerification, At: at},
		`{"deliveryId":"d2","submissionId":"","formId":"","verificationId":"v1","kind":"account_verification","at":"2026-03-01T12:30:00Z"}`},
	// The log's safe target: the recipient's domain or the webhook's host.
	{delivery.Queued{DeliveryID: "d3", SubmissionID: "s1", FormID: "f1", Kind: delivery.KindEmail, Target: "example.com", At: at},
		`{"deliveryId":"d3","submissionId":"s1","formId":"f1","kind":"email","target":"example.com","at":"2026-03-01T12:30:00Z"}`},
	// A test of a form's integration: no submission, the form and the test
	// mark instead.
	{delivery.Queued{DeliveryID: "d4", FormID: "f1", Kind: delivery.KindSlack, Target: "hooks.slack.com", Test: true, At: at},
		`{"deliveryId":"d4","submissionId":"","formId":"f1","kind":"slack","target":"hooks.slack.com","test":true,"at":"2026-03-01T12:30:00Z"}`},
	{delivery.RetryRequested{At: at}, `{"at":"2026-03-01T12:30:00Z"}`},
	{delivery.Succeeded{Attempt: 2, At: at}, `{"attempt":2,"at":"2026-03-01T12:30:00Z"}`},
	{delivery.AttemptFailed{Attempt: 1, Reason: "timeout", NextAt: at.Add(time.Minute), At: at},
		`{"attempt":1,"reason":"timeout","nextAt":"2026-03-01T12:31:00Z","at":"2026-03-01T12:30:00Z"}`},
	{delivery.GaveUp{Attempts: 8, Reason: "550 no such user", At: at},
		`{"attempts":8,"reason":"550 no such user","at":"2026-03-01T12:30:00Z"}`},
}

func TestStoredShapesArePinned(t *testing.T) {
	covered := map[string]bool{}
	for _, tt := range storedShapes {
		t.Run(tt.event.EventType(), func(t *testing.T) {
			covered[tt.event.EventType()] = true
			s, err := Encode(tt.event)
			if err != nil {
				t.Fatal(err)
			}
			if s.Type != tt.event.EventType() || s.SchemaVersion != 1 || string(s.Data) != tt.json {
				t.Errorf("Encode = %s v%d %s\nwant   %s v1 %s", s.Type, s.SchemaVersion, s.Data, tt.event.EventType(), tt.json)
			}
			got, err := Decode(Stored{Type: tt.event.EventType(), SchemaVersion: 1, Data: json.RawMessage(tt.json)})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.event) {
				t.Errorf("Decode(%s) =\n %#v\nwant\n %#v", tt.json, got, tt.event)
			}
		})
	}
	for _, name := range Types() {
		if !strings.HasPrefix(name, "test.") && !covered[name] {
			t.Errorf("%s has no pinned stored shape here", name)
		}
	}
}

func TestSettingsRoundTrip(t *testing.T) {
	for _, tt := range []struct {
		settings form.Settings
		json     string
	}{{sampleSettings, sampleSettingsJSON}, {captchaSettings, captchaSettingsJSON}} {
		data, err := EncodeSettings(tt.settings)
		if err != nil || string(data) != tt.json {
			t.Fatalf("EncodeSettings = %s, %v\nwant %s", data, err, tt.json)
		}
		got, err := DecodeSettings(data)
		if err != nil || !reflect.DeepEqual(got, tt.settings) {
			t.Fatalf("DecodeSettings = %#v, %v", got, err)
		}
	}
	// Every captcha provider survives the stored shape; formd's own has no keys.
	for _, c := range []form.Captcha{{Provider: form.CaptchaFormd}, {Provider: form.CaptchaTurnstile, SiteKey: "0x4A", SecretID: "c2"},
		{Provider: form.CaptchaRecaptchaV3, SiteKey: "k", MinScore: 0.7, SecretID: "c3"}} {
		s := sampleSettings
		s.Captcha = c
		data, _ := EncodeSettings(s)
		if got, err := DecodeSettings(data); err != nil || got.Captcha != c {
			t.Errorf("captcha %+v came back as %+v (%v) from %s", c, got.Captcha, err, data)
		}
	}
	// The archive is stored while on and absent while off, as before it existed.
	archived := sampleSettings
	archived.Archive = form.Archive{Enabled: true, RetentionDays: 30}
	data, _ := EncodeSettings(archived)
	if got, err := DecodeSettings(data); err != nil || got.Archive != archived.Archive {
		t.Errorf("archive came back as %+v (%v) from %s", got.Archive, err, data)
	}
	if !strings.Contains(string(data), `"archive":{"enabled":true,"retentionDays":30}`) {
		t.Errorf("archive stored as %s", data)
	}
	// The spam policy is stored while set and absent while off without
	// rules, as before it existed.
	if data, _ := EncodeSettings(sampleSettings); strings.Contains(string(data), `"spam"`) {
		t.Errorf("a form without a spam policy stored %s", data)
	}
	// Routes are stored while set and absent while none, as before they existed.
	if data, _ := EncodeSettings(sampleSettings); strings.Contains(string(data), `"routes"`) {
		t.Errorf("a form without routes stored %s", data)
	}
	routed := sampleSettings
	routed.Routes = []form.Route{{RecipientEmail: "sales@example.com", Field: "department", Operator: form.RouteEquals, Value: "sales"},
		{RecipientEmail: "eu@example.com", Field: "country", Operator: form.RouteIn, Values: []string{"de", "fr"}}}
	data, _ = EncodeSettings(routed)
	if got, err := DecodeSettings(data); err != nil || !reflect.DeepEqual(got.Routes, routed.Routes) {
		t.Errorf("routes came back as %+v (%v) from %s", got.Routes, err, data)
	}
	if !strings.Contains(string(data), `"routes":[{"recipientEmail":"sales@example.com","field":"department","operator":"equals","value":"sales"},{"recipientEmail":"eu@example.com","field":"country","operator":"in","values":["de","fr"]}]`) {
		t.Errorf("routes stored as %s", data)
	}
	filtered := sampleSettings
	filtered.Spam = form.Spam{Mode: form.SpamTag, Rules: form.SpamRules{AllowIPs: []string{"192.0.2.0/24"}, BlockWords: []string{"viagra"},
		BlockDisposable: true, MaxLinks: 3, AllowedScripts: []string{"Latin"}}}
	data, _ = EncodeSettings(filtered)
	if got, err := DecodeSettings(data); err != nil || !reflect.DeepEqual(got.Spam, filtered.Spam) {
		t.Errorf("spam came back as %+v (%v) from %s", got.Spam, err, data)
	}
	if !strings.Contains(string(data), `"spam":{"mode":"tag","rules":{"allowIps":["192.0.2.0/24"],"blockDisposable":true,"blockWords":["viagra"],"maxLinks":3,"allowedScripts":["Latin"]}}`) {
		t.Errorf("spam stored as %s", data)
	}
	// A language and own pages are stored while set and absent while not,
	// as before they existed.
	if data, _ := EncodeSettings(sampleSettings); strings.Contains(string(data), `"language"`) || strings.Contains(string(data), `"pages"`) {
		t.Errorf("a form without a language or pages stored %s", data)
	}
	localized := sampleSettings
	localized.Language = "de"
	localized.Pages = form.Pages{Success: form.PageTexts{"de": {Heading: "Danke", Text: "Bis bald"}, "en": {Heading: "Thanks"}}}
	data, _ = EncodeSettings(localized)
	if got, err := DecodeSettings(data); err != nil || !reflect.DeepEqual(got, localized) {
		t.Errorf("language and pages came back as %q %+v (%v) from %s", got.Language, got.Pages, err, data)
	}
	if !strings.Contains(string(data), `"language":"de","pages":{"success":{"de":{"heading":"Danke","text":"Bis bald"},"en":{"heading":"Thanks"}}}`) {
		t.Errorf("language and pages stored as %s", data)
	}
}

// renamed is a test event whose stored shape went through two versions:
// v1 {"title"} -> v2 {"name"} -> v3 {"name","lang"}.
type renamed struct{ Name, Lang string }

func (renamed) EventType() string { return "test.renamed.v1" }

type renamedV3 struct {
	Name string `json:"name"`
	Lang string `json:"lang"`
}

func init() {
	Register(func(e renamed) renamedV3 { return renamedV3(e) }, func(s renamedV3) renamed { return renamed(s) },
		func(v1 json.RawMessage) (json.RawMessage, error) {
			var old struct {
				Title string `json:"title"`
			}
			if err := json.Unmarshal(v1, &old); err != nil {
				return nil, err
			}
			return json.Marshal(map[string]string{"name": old.Title})
		},
		func(v2 json.RawMessage) (json.RawMessage, error) {
			var m map[string]string
			if err := json.Unmarshal(v2, &m); err != nil {
				return nil, err
			}
			m["lang"] = "en"
			return json.Marshal(m)
		})
}

func TestUpcastersRunInOrder(t *testing.T) {
	s, err := Encode(renamed{Name: "x", Lang: "de"})
	if err != nil || s.SchemaVersion != 3 {
		t.Fatalf("Encode = %+v, %v; want schema version 3", s, err)
	}
	for _, tt := range []struct {
		version int
		data    string
		want    renamed
	}{
		{0, `{"title":"old"}`, renamed{Name: "old", Lang: "en"}}, // an envelope without a version reads as v1
		{1, `{"title":"old"}`, renamed{Name: "old", Lang: "en"}},
		{2, `{"name":"mid"}`, renamed{Name: "mid", Lang: "en"}},
		{3, `{"name":"new","lang":"de"}`, renamed{Name: "new", Lang: "de"}},
	} {
		got, err := Decode(Stored{Type: "test.renamed.v1", SchemaVersion: tt.version, Data: json.RawMessage(tt.data)})
		if err != nil || got != tt.want {
			t.Errorf("Decode(v%d %s) = %+v, %v; want %+v", tt.version, tt.data, got, err, tt.want)
		}
	}
}

func TestDecodeRefuses(t *testing.T) {
	for _, s := range []Stored{
		{Type: "form.deleted.v1", SchemaVersion: 1, Data: json.RawMessage(`{}`)},
		{Type: form.CreatedType, SchemaVersion: 2, Data: json.RawMessage(`{}`)}, // written by a newer build
		{Type: form.CreatedType, SchemaVersion: 1, Data: json.RawMessage(`{"formId":1}`)},
	} {
		if e, err := Decode(s); err == nil {
			t.Errorf("Decode(%s v%d %s) = %+v, want an error", s.Type, s.SchemaVersion, s.Data, e)
		}
	}
}

func TestEncodeRefusesAnUnmappedEvent(t *testing.T) {
	if _, err := Encode(unmapped{}); err == nil {
		t.Fatal("Encode of an event without a stored shape succeeded")
	}
}

type unmapped struct{}

func (unmapped) EventType() string { return "test.unmapped.v1" }
