package features_test

import (
	"net/http"

	"github.com/chromedp/chromedp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// The Settings tab edits routing rules (docs/routing.md) in Chromium:
// checked with axe-core and photographed.
var _ = Describe("Dashboard routing rules", func() {
	It("adds a routing rule, refuses a broken one next to the table and shows each recipient's status", func() {
		f := shared
		lf := f.LiveForm(nil)
		base := "/dashboard/forms/" + lf.ID
		sales := UniqueEmail("sales")
		save := chromedp.Click(chromedp.CSS(`form[action$="/settings"] button[type=submit]`))
		row := func(n int, name string) string {
			return `table.routes tbody tr:nth-child(` + string(rune('0'+n)) + `) [name="` + name + `"]`
		}

		tab := NewTab()
		signIn(tab, f, lf.OwnerEmail)
		tab.Do(chromedp.Navigate(f.URL+base+"/settings"), chromedp.WaitVisible(chromedp.CSS("table.routes")))

		By("a pattern outside the safe subset being refused, named by its row")
		tab.Do(chromedp.SetValue(chromedp.CSS(row(1, "routeRecipient")), sales), chromedp.SetValue(chromedp.CSS(row(1, "routeField")), "department"),
			chromedp.SetValue(chromedp.CSS(row(1, "routeOperator")), "matches"), chromedp.SetValue(chromedp.CSS(row(1, "routeValue")), "(sales|deals)+"), save)
		tab.Do(chromedp.WaitVisible(chromedp.CSS("#routes-error")))
		Expect(tab.Text("#routes-error")).To(HavePrefix("Rule 1:"))

		By("a rule that reads well saving, and its recipient waiting for its own link")
		tab.Do(chromedp.SetValue(chromedp.CSS(row(1, "routeOperator")), "in"), chromedp.SetValue(chromedp.CSS(row(1, "routeValue")), "sales, deals"), save,
			chromedp.WaitVisible(chromedp.CSS(".banner-ok")))
		Expect(f.FormByID(lf.Token, lf.ID)["routes"]).To(ConsistOf(map[string]any{
			"recipientEmail": sales, "field": "department", "operator": "in", "values": []any{"sales", "deals"}}))
		Expect(tab.Text("table.routes tbody tr:nth-child(1)")).To(ContainSubstring("pending"))
		var value string
		tab.Eval(`document.querySelector('table.routes tbody tr:nth-child(1) [name="routeValue"]').value`, &value)
		Expect(value).To(Equal("sales, deals"))

		By("a submission for the pending recipient going to the primary, the delivery log saying why")
		r := f.Post("", "/submit", orderedJSON("access_key", lf.AccessKey, "department", "Deals", "message", "Hi"), fromExampleCom())
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		f.Mail.WaitForMail(lf.Recipient)
		tab.Do(chromedp.Navigate(f.URL+base+"/deliveries"), chromedp.WaitVisible(chromedp.CSS(".route-note")))
		Expect(tab.Text(".route-note")).To(Equal("rule 1 matched, but its recipient s…@example.test is not verified; sent to the primary recipient"))
		checkPage(tab, "form-deliveries-routed")
		tab.Do(chromedp.Navigate(f.URL+base+"/settings"), chromedp.WaitVisible(chromedp.CSS("table.routes")))

		By("the recipient following its link showing it verified")
		f.VerifyRecipient(sales)
		tab.Do(chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("table.routes")))
		Expect(tab.Text("table.routes tbody tr:nth-child(1)")).To(ContainSubstring("verified"))
		checkPage(tab, "form-settings-routes")
	})
})
