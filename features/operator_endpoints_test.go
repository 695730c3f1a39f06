package features_test

import (
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// operatorEndpoint is a loopback HTTPS server playing the Telegram Bot API
// for a formd configured to use it. It counts the bot's calls (formd's
// poller asks getMe and getUpdates on its own) apart from requests to any
// other path, which only a tenant's URL would make.
type operatorEndpoint struct {
	server   *httptest.Server
	caFile   string
	botCalls atomic.Int32
	tenant   atomic.Int32
}

func startOperatorEndpoint() *operatorEndpoint {
	GinkgoHelper()
	e := &operatorEndpoint{}
	e.server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		method, isBot := strings.CutPrefix(r.URL.Path, "/bot"+telegramBotToken+"/")
		if !isBot {
			e.tenant.Add(1)
			_, _ = io.WriteString(w, `{"ok":true}`)
			return
		}
		e.botCalls.Add(1)
		switch method {
		case "getUpdates":
			time.Sleep(200 * time.Millisecond) // a short long poll, with nothing to say
			_, _ = io.WriteString(w, `{"ok":true,"result":[]}`)
		case "getMe":
			_, _ = io.WriteString(w, `{"ok":true,"result":{"id":1,"is_bot":true,"username":"formd_test_bot"}}`)
		default:
			_, _ = io.WriteString(w, `{"ok":true,"result":{"message_id":1}}`)
		}
	}))
	e.server.StartTLS()
	DeferCleanup(e.server.Close)
	e.caFile = filepath.Join(GinkgoT().TempDir(), "operator-ca.pem")
	Expect(os.WriteFile(e.caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: e.server.Certificate().Raw}), 0o600)).To(Succeed())
	return e
}

var _ = Describe("Operator endpoints and the SSRF guard", func() {
	It("refuses a tenant's webhook and Slack URL naming the operator's Telegram host:port, while the bot still reaches it", func() {
		e := startOperatorEndpoint()
		// FORMD_WEBHOOK_ALLOW_PRIVATE is off: tenant URLs may not reach loopback.
		f := StartFormd("FORMD_TELEGRAM_BOT_TOKEN="+telegramBotToken, "FORMD_TELEGRAM_API_URL="+e.server.URL, "FORMD_WEBHOOK_CA_FILE="+e.caFile)
		db := f.OpenDB()
		lf := f.LiveForm(nil)
		for typ, path := range map[string]string{"webhook": "/hook", "slack": "/services/T0/B0/x"} {
			r := f.Patch(lf.Token, integrationsPath(lf.ID, typ), map[string]any{"enabled": true, "targetUrl": e.server.URL + path})
			Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		}

		By("the operator's own client reaching the bot's endpoint on loopback (the poller's getUpdates)")
		Eventually(e.botCalls.Load).WithTimeout(15 * time.Second).Should(BeNumerically(">=", 1))

		By("a submission's webhook and Slack deliveries, naming the same host:port, refused by the guard")
		s := f.Post("", "/submit", map[string]any{"access_key": lf.AccessKey, "message": "Hello"}, fromExampleCom())
		Expect(s.Status).To(Equal(http.StatusOK), "%s", s)
		var ids []string
		for _, key := range []string{"webhookDeliveryIds", "notificationDeliveryIds"} {
			for _, id := range s.Array(key) {
				ids = append(ids, id.(string))
			}
		}
		refused := func() int {
			n := 0
			for _, id := range ids {
				if row, _ := db.Delivery(id); row.Status == "failed" && strings.Contains(row.LastError, "SSRF guard") {
					n++
				}
			}
			return n
		}
		Eventually(refused).WithTimeout(15*time.Second).Should(Equal(2), "the webhook and the Slack delivery, refused")
		Expect(e.tenant.Load()).To(BeZero(), "no request from a tenant URL reached the operator's endpoint")
	})
})
