package features_test

import (
	"io"
	"net/http"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

var _ = Describe("Metrics", func() {
	It("counts submissions, commits, deliveries and requests on a listener of their own, without ids, addresses or keys", func() {
		metricsAddr := "127.0.0.1:" + freePort()
		f := StartFormd("FORMD_METRICS_ADDR=" + metricsAddr)
		// The metrics listener is no part of the public API: a plain client,
		// not the harness's, which checks every exchange against /openapi.json.
		client := &http.Client{Timeout: 10 * time.Second}
		DeferCleanup(client.CloseIdleConnections)
		scrape := func(g Gomega) map[string]*dto.MetricFamily { return scrapeMetrics(g, client, metricsAddr) }

		By("taking a baseline before any submission")
		before := scrape(Default)
		Expect(sample(before, "formd_submissions_total", "outcome", "accepted", "gate", "none")).To(BeZero())

		By("making an accepted submission, whose notification is delivered, and one the honeypot refuses")
		sf := verifiedSubmitForm(f, nil)
		origin := Header("Origin", "https://example.com")
		r := f.Post("", "/submit/"+sf.AccessKey, map[string]any{"message": "Hello", "email": UniqueEmail("ada")}, origin)
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		f.Mail.WaitForMail(sf.Recipient)
		r = f.Post("", "/submit/"+sf.AccessKey, map[string]any{"message": "Buy now", "botcheck": "on"}, origin)
		Expect(r.Status).To(Equal(http.StatusBadRequest), "%s", r)

		By("opening the dashboard's sign-in page, and a form of nobody's, as a stranger")
		noRedirects := &http.Client{Timeout: 10 * time.Second,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		DeferCleanup(noRedirects.CloseIdleConnections)
		for _, path := range []string{"/dashboard/sign-in", "/dashboard/sign-in", "/dashboard/forms/" + sf.ID} {
			resp, err := noRedirects.Get(f.URL + path)
			Expect(err).NotTo(HaveOccurred())
			resp.Body.Close()
		}

		By("scraping /metrics")
		var got map[string]*dto.MetricFamily
		Eventually(func(g Gomega) {
			got = scrape(g)
			// A delivery is counted once its attempt is recorded, just after the mail went out.
			g.Expect(sample(got, "formd_delivery_attempts_total", "kind", "email", "state", "succeeded")).To(BeNumerically(">=", 1))
		}).WithTimeout(10 * time.Second).WithPolling(100 * time.Millisecond).Should(Succeed())

		Expect(sample(got, "formd_submissions_total", "outcome", "accepted", "gate", "none")).To(Equal(1.0))
		Expect(sample(got, "formd_submissions_total", "outcome", "refused", "gate", "honeypot")).To(Equal(1.0))
		Expect(sample(got, "formd_submission_dry_runs_total", "outcome", "refused", "gate", "honeypot")).To(BeZero(),
			"dry runs are counted apart")
		Expect(sample(got, "formd_group_commit_size")).To(BeNumerically(">=", 1), "samples of the batch size")
		Expect(sample(got, "formd_group_commit_duration_seconds")).To(BeNumerically(">=", 1), "samples of the commit latency")
		Expect(sample(got, "formd_http_request_duration_seconds",
			"route", "/submit/:accessKey", "method", "POST", "status", "2xx")).To(Equal(1.0))
		Expect(sample(got, "formd_http_request_duration_seconds",
			"route", "/submit/:accessKey", "method", "POST", "status", "4xx")).To(Equal(1.0))
		Expect(sample(got, "formd_http_request_duration_seconds",
			"route", "/dashboard/sign-in", "method", "GET", "status", "2xx")).To(Equal(2.0), "dashboard pages count too")
		Expect(sample(got, "formd_http_request_duration_seconds",
			"route", "/dashboard/forms/{formID}", "method", "GET", "status", "3xx")).To(Equal(1.0),
			"a stranger is sent to sign in; the form id stays out of the route")
		for _, gauge := range []string{"formd_delivery_queue_depth", "formd_delivery_oldest_due_age_seconds", "formd_consumer_group_lag_messages"} {
			Expect(got).To(HaveKey(gauge))
			Expect(got[gauge].GetType()).To(Equal(dto.MetricType_GAUGE), gauge)
		}
		Expect(sample(got, "formd_delivery_queue_depth", "state", "queued")).To(BeNumerically(">=", 0))
		Expect(sample(got, "formd_delivery_queue_depth", "state", "retrying")).To(BeNumerically(">=", 0))

		By("finding no form id, email address or access key in any label")
		secrets := []string{sf.ID, sf.AccessKey, sf.Recipient, sf.Owner, "@"}
		for name, family := range got {
			for _, m := range family.Metric {
				for _, l := range m.Label {
					for _, s := range secrets {
						Expect(l.GetValue()).NotTo(ContainSubstring(s), "%s{%s=%q}", name, l.GetName(), l.GetValue())
					}
				}
			}
		}
	})
})

// scrapeMetrics reads the metric families formd serves on its metrics
// listener at addr.
func scrapeMetrics(g Gomega, client *http.Client, addr string) map[string]*dto.MetricFamily {
	resp, err := client.Get("http://" + addr + "/metrics")
	g.Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(resp.StatusCode).To(Equal(http.StatusOK), "%s", body)
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(strings.NewReader(string(body)))
	g.Expect(err).NotTo(HaveOccurred(), "%s", body)
	return families
}

// sample is the value of family's series with exactly these label pairs (a
// histogram's sample count); -1 when there is no such series.
func sample(families map[string]*dto.MetricFamily, family string, labels ...string) float64 {
	f := families[family]
	if f == nil {
		return -1
	}
series:
	for _, m := range f.Metric {
		if len(m.Label) != len(labels)/2 {
			continue
		}
		for i := 0; i < len(labels); i += 2 {
			found := false
			for _, l := range m.Label {
				found = found || (l.GetName() == labels[i] && l.GetValue() == labels[i+1])
			}
			if !found {
				continue series
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue()
		case m.Gauge != nil:
			return m.Gauge.GetValue()
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount())
		}
	}
	return -1
}
