package outbound_test

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/formd/formd/adapters/outbound"
	"github.com/formd/formd/application"
)

// operatorEndpoint is one loopback server playing both the Telegram Bot
// API and Google's token and Sheets endpoints, counting every connection
// made to it.
type operatorEndpoint struct {
	srv      *httptest.Server
	telegram *botAPI
	google   *google
	mu       sync.Mutex
	conns    int
}

func newOperatorEndpoint(t *testing.T) *operatorEndpoint {
	t.Helper()
	e := &operatorEndpoint{telegram: &botAPI{}, google: &google{t: t}}
	e.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/bot") {
			e.telegram.ServeHTTP(w, r)
			return
		}
		e.google.ServeHTTP(w, r)
	}))
	e.srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			e.mu.Lock()
			e.conns++
			e.mu.Unlock()
		}
	}
	e.srv.Start()
	t.Cleanup(e.srv.Close)
	return e
}

func (e *operatorEndpoint) connections() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.conns
}

// Operator endpoints (the Bot API, Google's) are trusted configuration and
// may be on loopback; a tenant's URL is not, even when it names exactly the
// operator's host and port: it goes through the SSRF guard like any other
// and never connects.
func TestATenantURLNamingAnOperatorEndpointIsStillGuarded(t *testing.T) {
	e := newOperatorEndpoint(t)
	file, pub := serviceAccountFile(t, e.srv.URL+"/token")
	e.google.key = pub
	s, err := outbound.NewSender(outbound.Options{TelegramBotToken: botToken, TelegramAPIURL: e.srv.URL,
		GoogleCredentialsFile: file, GoogleTokenURL: e.srv.URL + "/token", GoogleSheetsURL: e.srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{e.srv.URL + "/hook", e.srv.URL + "/bot" + botToken + "/sendMessage", e.srv.URL + "/token"} {
		err := s.Send(t.Context(), application.Webhook{ID: "d1", URL: target, Body: []byte(`{}`)})
		if !errors.Is(err, application.ErrPermanent) || !strings.Contains(err.Error(), "SSRF guard") {
			t.Errorf("a tenant webhook to the operator's endpoint %s: %v, want refused by the SSRF guard", target, err)
		}
	}
	if n := e.connections(); n != 0 {
		t.Fatalf("the operator's endpoint saw %d connections from tenant URLs, want none", n)
	}

	if err := s.SendTelegram(t.Context(), application.TelegramMessage{ID: "d2", Body: []byte(`{"chat_id":"-1001","text":"hi"}`)}); err != nil {
		t.Fatalf("the operator's Bot API on loopback: %v, want reached", err)
	}
	if err := s.AppendRow(t.Context(), application.SheetRow{ID: "d3", SpreadsheetID: "1AbC", SheetName: "Sheet1", Values: []string{"a"}}); err != nil {
		t.Fatalf("the operator's Google endpoints on loopback: %v, want reached", err)
	}
	if len(e.telegram.bodies) != 1 || len(e.google.appends) != 1 || e.connections() == 0 {
		t.Fatalf("operator calls: %d Telegram, %d Sheets, %d connections; want each reached", len(e.telegram.bodies), len(e.google.appends), e.connections())
	}
}
