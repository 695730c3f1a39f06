package features_test

// Fakes of the operator's services: the Telegram Bot API and Google's token
// endpoint and Sheets API, with the helpers specs connect and prove with.

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// telegramBotToken is a token shaped as @BotFather gives them.
const telegramBotToken = "7012345678:AAF0dW5uaW5nLWZvcm1kLWFjY2VwdGFuY2U"

// serviceAccountEmail is the service account the Google fake knows.
const serviceAccountEmail = "formd-sheets@acceptance.iam.gserviceaccount.com"

// serviceCall is one request a fake service accepted.
type serviceCall struct {
	Path  string
	Query url.Values
	Body  map[string]any
}

// fakeServices plays the Telegram Bot API and Google's token endpoint and
// Sheets API on one loopback listener, checking each request as the real
// service would: the bot token in the path, a JWT bearer grant signed with
// the service account's key, the access token it issued, and the shape of
// each call. A request that fails a check is answered as the service would
// and recorded in refused.
type fakeServices struct {
	server *httptest.Server
	key    *rsa.PublicKey
	// caFile holds the server's certificate: the services speak HTTPS.
	caFile string

	mu       sync.Mutex
	telegram []serviceCall
	rows     []serviceCall
	tokens   int
	refused  []string
	// The bot's updates (getUpdates), the chats it was sent a message in
	// (the only ones it can post to), and how many getUpdates calls were
	// in flight at once at most: Telegram refuses a second one with 409.
	updates     []map[string]any
	newUpdate   chan struct{}
	chats       map[string]bool
	polling     int
	mostPolling int
	// cells are what each spreadsheet shared with the service account
	// holds, by spreadsheet id and range.
	cells map[string]map[string]string
}

func startFakeServices() (*fakeServices, string) {
	GinkgoHelper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	Expect(err).NotTo(HaveOccurred())
	s := &fakeServices{key: &key.PublicKey, newUpdate: make(chan struct{}), chats: map[string]bool{},
		cells: map[string]map[string]string{}}
	s.server = httptest.NewTLSServer(http.HandlerFunc(s.serve))
	DeferCleanup(s.server.Close)
	s.caFile = filepath.Join(GinkgoT().TempDir(), "services-ca.pem")
	Expect(os.WriteFile(s.caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.server.Certificate().Raw}), 0o600)).To(Succeed())
	der, err := x509.MarshalPKCS8PrivateKey(key)
	Expect(err).NotTo(HaveOccurred())
	raw, _ := json.Marshal(map[string]string{
		"type": "service_account", "project_id": "acceptance", "private_key_id": "key-1", "client_email": serviceAccountEmail,
		"private_key": string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		"token_uri":   "https://oauth2.googleapis.com/token",
	})
	file := filepath.Join(GinkgoT().TempDir(), "service-account.json")
	Expect(os.WriteFile(file, raw, 0o600)).To(Succeed())
	return s, file
}

// Env is the configuration that points a formd at these services.
func (s *fakeServices) Env(credentials string) []string {
	return []string{"FORMD_TELEGRAM_BOT_TOKEN=" + telegramBotToken, "FORMD_TELEGRAM_API_URL=" + s.server.URL,
		"FORMD_GOOGLE_CREDENTIALS_FILE=" + credentials, "FORMD_GOOGLE_TOKEN_URL=" + s.server.URL + "/token",
		"FORMD_GOOGLE_SHEETS_URL=" + s.server.URL, "FORMD_WEBHOOK_CA_FILE=" + s.caFile}
}

func (s *fakeServices) refuse(w http.ResponseWriter, status int, why string) {
	s.refused = append(s.refused, why)
	w.WriteHeader(status)
	_, _ = fmt.Fprintf(w, `{"ok":false,"error_code":%d,"description":%q,"error":{"code":%d,"message":%q}}`, status, why, status, why)
}

// sharedServices are the Telegram and Google fakes of this process's shared formd.
var sharedServices *fakeServices

// telegramBotUsername is the fake bot's, as getMe tells it.
const telegramBotUsername = "formd_acceptance_bot"

// SendFromChat is someone in chatID sending text to the bot (a deep link's
// "/start <code>" included): the bot sees it in its next getUpdates, and
// is now in the chat.
func (s *fakeServices) SendFromChat(chatID int64, text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.chats[fmt.Sprint(chatID)] = true
	s.updates = append(s.updates, map[string]any{"update_id": 1000 + len(s.updates),
		"message": map[string]any{"message_id": len(s.updates) + 1, "text": text,
			"chat": map[string]any{"id": chatID, "type": "supergroup", "title": "Chat"}}})
	close(s.newUpdate)
	s.newUpdate = make(chan struct{})
}

// SetCell is the spreadsheet's owner writing value in a range of it (and
// sharing it with the service account).
func (s *fakeServices) SetCell(spreadsheetID, a1, value string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cells[spreadsheetID] == nil {
		s.cells[spreadsheetID] = map[string]string{}
	}
	s.cells[spreadsheetID][a1] = value
}

// LeaveChat is the bot being removed from a chat: it can no longer post there.
func (s *fakeServices) LeaveChat(chatID int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.chats, fmt.Sprint(chatID))
}

// MostConcurrentPolls is the most getUpdates calls that were ever in flight at once.
func (s *fakeServices) MostConcurrentPolls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mostPolling
}

// getUpdates answers the updates from the offset asked for, long-polling
// for up to the timeout asked (at most 2 s here) while there are none.
func (s *fakeServices) getUpdates(w http.ResponseWriter, body []byte) {
	var q struct {
		Offset  int `json:"offset"`
		Timeout int `json:"timeout"`
	}
	_ = json.Unmarshal(body, &q)
	deadline := time.After(min(time.Duration(q.Timeout)*time.Second, 2*time.Second))
	s.mu.Lock()
	s.polling++
	s.mostPolling = max(s.mostPolling, s.polling)
	defer func() { s.polling-- }()
	for {
		var result []map[string]any
		for _, u := range s.updates {
			if u["update_id"].(int) >= q.Offset {
				result = append(result, u)
			}
		}
		wake := s.newUpdate
		if len(result) > 0 {
			raw, _ := json.Marshal(map[string]any{"ok": true, "result": result})
			s.mu.Unlock()
			_, _ = w.Write(raw)
			s.mu.Lock()
			return
		}
		s.mu.Unlock()
		select {
		case <-wake:
			s.mu.Lock()
		case <-deadline:
			s.mu.Lock()
			_, _ = io.WriteString(w, `{"ok":true,"result":[]}`)
			return
		}
	}
}

func (s *fakeServices) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	w.Header().Set("Content-Type", "application/json")
	if r.URL.Path == "/bot"+telegramBotToken+"/getUpdates" {
		s.getUpdates(w, body)
		s.mu.Unlock()
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case r.URL.Path == "/bot"+telegramBotToken+"/getMe":
		_, _ = fmt.Fprintf(w, `{"ok":true,"result":{"id":7012345678,"is_bot":true,"first_name":"formd","username":%q}}`, telegramBotUsername)
	case strings.HasPrefix(r.URL.Path, "/bot"):
		if r.URL.Path != "/bot"+telegramBotToken+"/sendMessage" {
			s.refuse(w, http.StatusUnauthorized, "Unauthorized")
			return
		}
		var m map[string]any
		if r.Method != http.MethodPost || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") || json.Unmarshal(body, &m) != nil ||
			m["chat_id"] == nil || m["text"] == nil {
			s.refuse(w, http.StatusBadRequest, "Bad Request: message text is empty")
			return
		}
		if !s.chats[fmt.Sprint(m["chat_id"])] {
			s.refuse(w, http.StatusBadRequest, "Bad Request: chat not found")
			return
		}
		s.telegram = append(s.telegram, serviceCall{Path: r.URL.Path, Body: m})
		_, _ = io.WriteString(w, `{"ok":true,"result":{"message_id":1}}`)
	case r.URL.Path == "/token":
		form, err := url.ParseQuery(string(body))
		if err != nil || form.Get("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer" {
			s.refuse(w, http.StatusBadRequest, "unsupported_grant_type")
			return
		}
		claims, err := verifyJWT(form.Get("assertion"), s.key)
		if err != nil || claims["iss"] != serviceAccountEmail || claims["scope"] != "https://www.googleapis.com/auth/spreadsheets" ||
			claims["aud"] != s.server.URL+"/token" {
			s.refuse(w, http.StatusBadRequest, fmt.Sprintf("invalid_grant: %v %v", err, claims))
			return
		}
		s.tokens++
		_, _ = fmt.Fprintf(w, `{"access_token":"ya29.token-%d","token_type":"Bearer","expires_in":3599}`, s.tokens)
	case strings.HasPrefix(r.URL.Path, "/v4/spreadsheets/"):
		if r.Header.Get("Authorization") != fmt.Sprintf("Bearer ya29.token-%d", s.tokens) {
			s.refuse(w, http.StatusUnauthorized, "Request had invalid authentication credentials.")
			return
		}
		if r.Method == http.MethodGet {
			// spreadsheets.values.get: /v4/spreadsheets/{id}/values/{range}
			id, a1, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/v4/spreadsheets/"), "/values/")
			cells, shared := s.cells[id]
			if !shared { // not shared with the service account: Google's answer, and no mistake of formd's
				w.WriteHeader(http.StatusNotFound)
				_, _ = io.WriteString(w, `{"error":{"code":404,"message":"Requested entity was not found.","status":"NOT_FOUND"}}`)
				return
			}
			if v, ok := cells[a1]; ok {
				raw, _ := json.Marshal(map[string]any{"range": a1, "majorDimension": "ROWS", "values": [][]string{{v}}})
				_, _ = w.Write(raw)
				return
			}
			_, _ = fmt.Fprintf(w, `{"range":%q,"majorDimension":"ROWS"}`, a1)
			return
		}
		var m map[string]any
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, ":append") || json.Unmarshal(body, &m) != nil {
			s.refuse(w, http.StatusBadRequest, "Invalid request")
			return
		}
		s.rows = append(s.rows, serviceCall{Path: r.URL.Path, Query: r.URL.Query(), Body: m})
		_, _ = io.WriteString(w, `{"updates":{"updatedRows":1}}`)
	default:
		s.refuse(w, http.StatusNotFound, "Not Found")
	}
}

func (s *fakeServices) Telegram() []serviceCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]serviceCall(nil), s.telegram...)
}
func (s *fakeServices) Rows() []serviceCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]serviceCall(nil), s.rows...)
}
func (s *fakeServices) Refused() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.refused...)
}

// verifyJWT checks a compact JWT's RS256 signature, as Google's token
// endpoint does, and returns its claims.
func verifyJWT(token string, key *rsa.PublicKey) (map[string]any, error) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return nil, errors.New("not a compact JWT")
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return nil, err
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if err := rsa.VerifyPKCS1v15(key, crypto.SHA256, digest[:], sig); err != nil {
		return nil, err
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return nil, err
	}
	var claims map[string]any
	return claims, json.Unmarshal(raw, &claims)
}

// deliveryState is a delivery's state in the log, or the status of the
// answer while it is not there yet (the log is a projection).
func deliveryState(f *Formd, token, id string) any {
	r := f.Get(token, "/v1/deliveries/"+id)
	if r.Status != http.StatusOK {
		return r.Status
	}
	return r.Object("delivery")["state"]
}

// connectTelegram enables the form's Telegram integration and connects
// chatID as a person in the chat does, by sending the connect code the
// answer shows to the bot, then waits until the form lists the chat.
func connectTelegram(f *Formd, services *fakeServices, token, formID string, chatID int64) {
	GinkgoHelper()
	r := f.Patch(token, integrationsPath(formID, "telegram"), map[string]any{"enabled": true})
	Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
	connect, _ := r.Object("integration")["connect"].(map[string]any)
	Expect(connect).To(HaveKeyWithValue("command", MatchRegexp(`^/start [A-Za-z0-9_-]{20,64}$`)), "%s", r)
	services.SendFromChat(chatID, connect["command"].(string))
	Eventually(func() any { return telegramChatOf(f, token, formID) }).WithTimeout(15 * time.Second).Should(Equal(fmt.Sprint(chatID)))
}

// proveSheet configures the form's Google Sheets integration, writes the
// proof code its answer shows in the spreadsheet's formd!A1 as the
// spreadsheet's owner would, and saves it again, which proves it.
func proveSheet(f *Formd, services *fakeServices, token, formID string, config map[string]any) {
	GinkgoHelper()
	r := f.Patch(token, integrationsPath(formID, "google_sheets"), config)
	Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
	Expect(r.Object("integration")).To(HaveKeyWithValue("sheetProven", false))
	proof, _ := r.Object("integration")["proof"].(map[string]any)
	Expect(proof).To(HaveKeyWithValue("range", "formd!A1"), "%s", r)
	services.SetCell(r.Object("integration")["spreadsheetId"].(string), "formd!A1", proof["code"].(string))
	r = f.Patch(token, integrationsPath(formID, "google_sheets"), map[string]any{})
	Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
	Expect(r.Object("integration")).To(HaveKeyWithValue("sheetProven", true), "%s", r)
	Expect(r.Object("integration")).NotTo(HaveKey("proof"))
}

// telegramChatOf is the chat the form's Telegram integration lists.
func telegramChatOf(f *Formd, token, formID string) any {
	for _, in := range f.Get(token, integrationsPath(formID)).Array("integrations") {
		if m := in.(map[string]any); m["type"] == "telegram" {
			return m["chatId"]
		}
	}
	return nil
}
