package features_test

import (
	"encoding/pem"
	"io"
	"net"
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
// for a formd configured to use it, counting every connection it gets and
// every sendMessage it answers.
type operatorEndpoint struct {
	server      *httptest.Server
	caFile      string
	connections atomic.Int32
	messages    atomic.Int32
	other       atomic.Int32 // requests to any other path: a tenant's
}

func startOperatorEndpoint() *operatorEndpoint {
	GinkgoHelper()
	e := &operatorEndpoint{}
	e.server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/bot"+telegramBotToken+"/sendMessage" {
			e.messages.Add(1)
			_, _ = io.WriteString(w, `{"ok":true,"result":{"message_id":1}}`)
			return
		}
		e.other.Add(1)
		_, _ = io.WriteString(w, `{"ok":true}`)
	}))
	e.server.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			e.connections.Add(1)
		}
	}
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

		By("a submission's webhook and Slack deliveries are refused by the guard, and never connect")
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
		Expect(e.connections.Load()).To(BeZero(), "the operator's endpoint saw no connection from a tenant URL")
		Expect(e.other.Load()).To(BeZero())

		By("the operator's own integration still reaches it on loopback")
		r := f.Patch(lf.Token, integrationsPath(lf.ID, "telegram"), map[string]any{"enabled": true, "chatId": "-1001234567890"})
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(f.Post(lf.Token, integrationsPath(lf.ID, "telegram")+"/test", nil).Status).To(Equal(http.StatusCreated))
		Eventually(e.messages.Load).WithTimeout(15 * time.Second).Should(BeNumerically(">=", 1))
		Expect(e.connections.Load()).To(BeNumerically(">=", 1))
		Expect(e.other.Load()).To(BeZero())
	})
})
