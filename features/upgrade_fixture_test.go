package features_test

// The upgrade fixture of a release (docs/development.md "Every release adds
// its upgrade fixture"): a formd of the release, driven through its own API,
// fills a database that the upgrade spec (upgrade_test.go) later migrates
// with every newer formd. It runs only when asked:
//
//	FORMD_WRITE_UPGRADE_FIXTURE=v0.1.0 go tool ginkgo --focus 'Upgrade fixture' ./features
//
// and writes testdata/upgrade/<version>/: dump.sql (pg_dump, plain SQL),
// manifest.json (what the spec checks) and test-only-secret.key.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// upgradeFixturesDir holds one folder per release, named for its tag.
const upgradeFixturesDir = "testdata/upgrade"

// upgradeManifest is what the upgrade spec needs to know about a fixture's
// database. Every value in it is test-only.
type upgradeManifest struct {
	// Release is the release whose formd made the fixture (its tag).
	Release string `json:"release"`
	// SchemaVersion is the newest migration that release applied.
	SchemaVersion int `json:"schemaVersion"`
	// APIToken is a workspace API token (forms:read, forms:write) of the
	// fixture's only account, in plain text.
	APIToken string `json:"apiToken"`
	// Forms are the account's forms as the release showed them.
	Forms []fixtureForm `json:"forms"`
	// QueuedSubmissions were accepted while no delivery worker ran: their
	// notifications are still queued in the dump.
	QueuedSubmissions []fixtureSubmission `json:"queuedSubmissions"`
}

// fixtureForm is one form of the fixture.
type fixtureForm struct {
	ID        string `json:"id"`
	AccessKey string `json:"accessKey"`
	// Settings is the form as GET /v1/forms listed it.
	Settings map[string]any `json:"settings"`
	// AuditTrail is GET /v1/forms/{id}/events, in order.
	AuditTrail []fixtureEvent `json:"auditTrail"`
	// Webhook is the form's (disabled) webhook as GET
	// /v1/forms/{id}/integrations listed it, if the form has one.
	Webhook map[string]any `json:"webhook,omitempty"`
}

// fixtureEvent is what identifies an event of a form's audit trail.
type fixtureEvent struct {
	Type       string `json:"type"`
	Version    int    `json:"version"`
	RequestID  string `json:"requestId"`
	RecordedAt string `json:"recordedAt"`
}

// fixtureSubmission is a submission whose notification is queued.
type fixtureSubmission struct {
	FormID     string `json:"formId"`
	Recipient  string `json:"recipient"`
	Marker     string `json:"marker"`
	DeliveryID string `json:"deliveryId"`
}

// restrictLine matches the \restrict and \unrestrict lines newer pg_dump
// builds write around a plain dump; older psql builds refuse them, and the
// fixture is our own, so it goes without them.
var restrictLine = regexp.MustCompile(`(?m)^\\(un)?restrict [A-Za-z0-9]+\n`)

var _ = func() bool {
	release := os.Getenv("FORMD_WRITE_UPGRADE_FIXTURE")
	if release == "" {
		return false
	}
	Describe("Upgrade fixture", func() {
		It("records a database that formd "+release+" filled through its API, with deliveries still queued", func() {
			writeUpgradeFixture(release)
		})
	})
	return true
}()

// writeUpgradeFixture drives a formd of this build as a self-hoster's users
// would and writes its database, and what the upgrade spec must find in it,
// to testdata/upgrade/<release>/.
func writeUpgradeFixture(release string) {
	GinkgoHelper()
	Expect(release).To(MatchRegexp(`^v\d+\.\d+\.\d+$`), "FORMD_WRITE_UPGRADE_FIXTURE names a release tag")
	key := randomHex(32)
	f := StartFormd("FORMD_SECRET_KEY=" + key)
	manifest := upgradeManifest{Release: release}

	By("an account with two forms whose settings changed several times, and an API token")
	owner := "owner@fixture.example.test"
	session := f.Register(owner, DefaultPassword)
	f.VerifyAccount(owner)
	contact := f.LiveFormOf(session, owner, map[string]any{
		"name": "Contact", "recipientEmail": "contact-inbox@fixture.example.test", "allowedDomains": []string{"www.example.com"},
	})
	signup := f.LiveFormOf(session, owner, map[string]any{
		"name": "Newsletter", "recipientEmail": "signup-inbox@fixture.example.test",
	})
	patch := func(token, formID string, body map[string]any) {
		GinkgoHelper()
		r := f.Patch(token, "/v1/forms/"+formID, body)
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
	}
	patch(session, contact.ID, map[string]any{"name": "Contact us", "subjectDefault": "New message from the website"})
	patch(session, contact.ID, map[string]any{"fromNameDefault": "Website", "allowedDomains": []string{"www.example.com", "example.com"}})
	patch(session, signup.ID, map[string]any{"name": "Newsletter sign-up"})

	workspaces := f.Get(session, "/v1/workspaces")
	Expect(workspaces.Status).To(Equal(http.StatusOK), "%s", workspaces)
	workspaceID := workspaces.Array("workspaces")[0].(map[string]any)["id"].(string)
	created := f.Post(session, "/v1/workspaces/"+workspaceID+"/tokens",
		map[string]any{"name": "upgrade fixture", "scopes": []string{"forms:read", "forms:write"}})
	Expect(created.Status).To(Equal(http.StatusCreated), "%s", created)
	manifest.APIToken = created.Object("token")["secret"].(string)
	patch(manifest.APIToken, contact.ID, map[string]any{"subjectDefault": "Contact form: new message"})

	By("a webhook, enabled and then disabled, so that it has settings but queues nothing")
	const webhookTarget = "https://hooks.example.com/formd/leads"
	for _, body := range []map[string]any{{"enabled": true, "targetUrl": webhookTarget}, {"enabled": false}} {
		r := f.Patch(session, integrationsPath(signup.ID, "webhook"), body)
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
	}

	for _, lf := range []LiveForm{contact, signup} {
		form := fixtureForm{ID: lf.ID, AccessKey: lf.AccessKey, Settings: f.FormByID(manifest.APIToken, lf.ID)}
		for _, e := range f.Events(manifest.APIToken, lf.ID) {
			form.AuditTrail = append(form.AuditTrail, fixtureEvent{
				Type: e["type"].(string), Version: int(e["version"].(float64)),
				RequestID: e["requestId"].(string), RecordedAt: e["recordedAt"].(string),
			})
		}
		if lf.ID == signup.ID {
			form.Webhook = listedWebhook(f, manifest.APIToken, lf.ID)
		}
		manifest.Forms = append(manifest.Forms, form)
	}

	By("submissions accepted while no delivery worker runs, so that their mail stays queued")
	f.stop()
	intake := f.StartTwin("FORMD_DELIVERY_WORKERS=0")
	for i, lf := range []LiveForm{contact, contact, signup} {
		marker := fmt.Sprintf("%s queued submission %d %s", release, i+1, randomHex(4))
		r := intake.Post("", "/submit/"+lf.AccessKey, map[string]any{"email": "visitor@example.org", "message": marker}, fromExampleCom())
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		manifest.QueuedSubmissions = append(manifest.QueuedSubmissions, fixtureSubmission{
			FormID: lf.ID, Recipient: lf.Recipient, Marker: marker, DeliveryID: r.JSON["deliveryId"].(string),
		})
	}
	intake.stop()
	db := f.OpenDB()
	for _, s := range manifest.QueuedSubmissions {
		row, ok := db.Delivery(s.DeliveryID)
		Expect(ok).To(BeTrue())
		Expect(row.Status).To(Equal("queued"), "delivery %s", s.DeliveryID)
	}
	manifest.SchemaVersion = db.Int(`SELECT max(version_id)::int FROM goose_db_version WHERE is_applied`)

	By("writing the dump, the manifest and the key")
	dir := filepath.Join(upgradeFixturesDir, release)
	Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
	dump := RunPGProgram("pg_dump", "--format=plain", "--no-owner", "--no-privileges", "--dbname="+f.DatabaseURL)
	dump = restrictLine.ReplaceAll(dump, nil)
	Expect(os.WriteFile(filepath.Join(dir, "dump.sql"), dump, 0o644)).To(Succeed())
	data, err := json.MarshalIndent(manifest, "", "  ")
	Expect(err).NotTo(HaveOccurred())
	Expect(os.WriteFile(filepath.Join(dir, "manifest.json"), append(data, '\n'), 0o644)).To(Succeed())
	Expect(os.WriteFile(filepath.Join(dir, "test-only-secret.key"), []byte(key+"\n"), 0o644)).To(Succeed())
	AddReportEntry("upgrade fixture", dir)
}

// listedWebhook is a form's webhook as GET /v1/forms/{id}/integrations lists
// it.
func listedWebhook(f *Formd, token, formID string) map[string]any {
	GinkgoHelper()
	r := f.Get(token, integrationsPath(formID))
	Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
	for _, in := range r.Array("integrations") {
		if in := in.(map[string]any); in["type"] == "webhook" {
			return in
		}
	}
	Fail("form " + formID + " lists no webhook")
	return nil
}
