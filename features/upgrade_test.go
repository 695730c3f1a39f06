package features_test

// Upgrading (issue 36, item 6; docs/operations.md "Upgrading"): the database
// of every released formd, as its fixture under testdata/upgrade/ keeps it,
// is migrated forward by this formd and keeps serving: its forms, their audit
// trails and API token, and the deliveries it had queued.

import (
	"encoding/json"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/formd/formd/migrations"
)

// upgradeFixtureEntries is one table entry per release folder under
// testdata/upgrade/, so that a release adds its fixture and nothing else.
func upgradeFixtureEntries() []TableEntry {
	dirs, err := os.ReadDir(upgradeFixturesDir)
	if err != nil {
		panic("read the upgrade fixtures: " + err.Error())
	}
	var entries []TableEntry
	for _, d := range dirs {
		if d.IsDir() {
			entries = append(entries, Entry("from "+d.Name(), d.Name()))
		}
	}
	return entries
}

// newestMigration is the version of the newest migration this formd applies.
func newestMigration() int {
	GinkgoHelper()
	names, err := fs.Glob(migrations.FS, "*.sql")
	Expect(err).NotTo(HaveOccurred())
	newest := 0
	for _, name := range names {
		v, err := strconv.Atoi(strings.SplitN(name, "_", 2)[0])
		Expect(err).NotTo(HaveOccurred(), "migration %s", name)
		newest = max(newest, v)
	}
	return newest
}

// readUpgradeFixture reads a release's manifest and test-only key.
func readUpgradeFixture(dir string) (upgradeManifest, string) {
	GinkgoHelper()
	data, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	Expect(err).NotTo(HaveOccurred())
	var manifest upgradeManifest
	Expect(json.Unmarshal(data, &manifest)).To(Succeed())
	key, err := os.ReadFile(filepath.Join(dir, "test-only-secret.key"))
	Expect(err).NotTo(HaveOccurred())
	return manifest, strings.TrimSpace(string(key))
}

var _ = Describe("Upgrade", func() {
	It("has a fixture for the first release and for every release the changelog lists", func() {
		Expect(filepath.Join(upgradeFixturesDir, "v0.1.0", "dump.sql")).To(BeAnExistingFile())
		changelog, err := os.ReadFile("../CHANGELOG.md")
		if os.IsNotExist(err) {
			return
		}
		Expect(err).NotTo(HaveOccurred())
		releases := regexp.MustCompile(`(?m)^## \[v?(\d+\.\d+\.\d+)\]`).FindAllStringSubmatch(string(changelog), -1)
		for _, r := range releases {
			Expect(filepath.Join(upgradeFixturesDir, "v"+r[1], "dump.sql")).To(BeAnExistingFile(),
				"release %s has no upgrade fixture (docs/development.md: Every release adds its upgrade fixture)", r[1])
		}
	})

	DescribeTable("migrates a released formd's database forward and keeps serving it",
		func(release string) {
			dir := filepath.Join(upgradeFixturesDir, release)
			manifest, key := readUpgradeFixture(dir)
			Expect(manifest.Release).To(Equal(release))

			By("restoring " + release + "'s database and starting this formd on it with that release's key")
			f := StartFormdOn(RestorePlainDump(filepath.Join(dir, "dump.sql")), "FORMD_SECRET_KEY="+key)
			db := f.OpenDB()
			Expect(db.Int(`SELECT max(version_id)::int FROM goose_db_version WHERE is_applied`)).To(
				SatisfyAll(Equal(newestMigration()), BeNumerically(">=", manifest.SchemaVersion)), "migrated to this formd's schema")

			By("the release's API token reading its forms with their settings and audit trails")
			token := manifest.APIToken
			for _, form := range manifest.Forms {
				listed := f.FormByID(token, form.ID)
				for name, value := range form.Settings {
					Expect(listed).To(HaveKeyWithValue(name, value), "setting %s of form %s", name, form.ID)
				}
				trail := f.Events(token, form.ID)
				Expect(len(trail)).To(BeNumerically(">=", len(form.AuditTrail)), "the audit trail of form %s", form.ID)
				for i, want := range form.AuditTrail {
					Expect(trail[i]).To(SatisfyAll(
						HaveKeyWithValue("type", want.Type),
						HaveKeyWithValue("version", BeNumerically("==", want.Version)),
						HaveKeyWithValue("requestId", want.RequestID),
						HaveKeyWithValue("recordedAt", want.RecordedAt),
					), "event %d of form %s", i+1, form.ID)
				}
				if form.Webhook != nil {
					Expect(listedWebhook(f, token, form.ID)).To(Equal(form.Webhook), "the webhook of form %s", form.ID)
				}
			}

			By("the deliveries the release had queued reaching their recipients, once each")
			Expect(manifest.QueuedSubmissions).NotTo(BeEmpty())
			for _, s := range manifest.QueuedSubmissions {
				Expect(mailWithID(f, s.Recipient, s.DeliveryID).Text).To(ContainSubstring(s.Marker))
			}
			for _, s := range manifest.QueuedSubmissions {
				Expect(mailsHolding(f, s.Recipient, s.Marker)).To(Equal(1), "mails holding %q", s.Marker)
			}

			By("the token changing a form, and a new submission accepted and delivered")
			form := manifest.Forms[0]
			changed := f.Patch(token, "/v1/forms/"+form.ID, map[string]any{"name": "Renamed after the upgrade"})
			Expect(changed.Status).To(Equal(http.StatusOK), "%s", changed)
			Expect(f.Events(token, form.ID)).To(HaveLen(len(form.AuditTrail)+1), "one more event in the audit trail")
			marker := "after the upgrade from " + release + " " + randomHex(4)
			r := f.Post("", "/submit/"+form.AccessKey, map[string]any{"message": marker}, fromExampleCom())
			Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
			recipient := form.Settings["recipientEmail"].(string)
			Expect(mailWithID(f, recipient, r.JSON["deliveryId"].(string)).Text).To(ContainSubstring(marker))
		},
		upgradeFixtureEntries(),
	)
})

// mailsHolding counts the mails to `to` whose text holds marker.
func mailsHolding(f *Formd, to, marker string) int {
	n := 0
	for _, m := range f.Mail.To(to) {
		if strings.Contains(m.Text, marker) {
			n++
		}
	}
	return n
}
