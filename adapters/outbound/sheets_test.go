package outbound_test

import (
	"context"
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
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/formd/formd/adapters/outbound"
	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/form"
)

const serviceEmail = "formd@project.iam.gserviceaccount.com"

// google plays Google's token endpoint and the Sheets API as a client
// meets them: the token endpoint checks the JWT bearer grant and its RS256
// signature with the service account's public key; the Sheets API checks
// the access token and the append call.
type google struct {
	t       *testing.T
	key     *rsa.PublicKey
	mu      sync.Mutex
	issued  int
	appends []appendCall
	status  int // the Sheets API's answer when set
	refuse  string
	// cells answer spreadsheets.values.get, by spreadsheet id and range.
	cells map[string]string
}

type appendCall struct {
	Spreadsheet, Range, Query string
	Body                      map[string]any
}

func (g *google) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if r.URL.Path == "/token" {
		g.token(w, r)
		return
	}
	// /v4/spreadsheets/{id}/values/{range}:append
	parts := strings.Split(strings.TrimPrefix(r.URL.EscapedPath(), "/v4/spreadsheets/"), "/")
	if r.Method == http.MethodGet && len(parts) == 3 && r.Header.Get("Authorization") == fmt.Sprintf("Bearer token-%d", g.issued) {
		id, _ := url.PathUnescape(parts[0])
		rng, _ := url.PathUnescape(parts[2])
		v, ok := g.cells[id+" "+rng]
		if !ok {
			http.Error(w, `{"error":{"code":404,"message":"Requested entity was not found."}}`, http.StatusNotFound)
			return
		}
		_, _ = fmt.Fprintf(w, `{"range":%q,"majorDimension":"ROWS","values":[[%q]]}`, rng, v)
		return
	}
	if len(parts) != 3 || parts[1] != "values" || !strings.HasSuffix(parts[2], ":append") || r.Method != http.MethodPost {
		http.Error(w, `{"error":{"code":404,"message":"no such method"}}`, http.StatusNotFound)
		return
	}
	if r.Header.Get("Authorization") != fmt.Sprintf("Bearer token-%d", g.issued) || g.refuse == r.Header.Get("Authorization") {
		http.Error(w, `{"error":{"code":401,"message":"Request had invalid authentication credentials.","status":"UNAUTHENTICATED"}}`, http.StatusUnauthorized)
		return
	}
	if g.status != 0 {
		w.WriteHeader(g.status)
		_, _ = io.WriteString(w, `{"error":{"code":403,"message":"The caller does not have permission","status":"PERMISSION_DENIED"}}`)
		return
	}
	id, _ := url.PathUnescape(parts[0])
	rng, _ := url.PathUnescape(strings.TrimSuffix(parts[2], ":append"))
	var body map[string]any
	_ = json.NewDecoder(r.Body).Decode(&body)
	g.appends = append(g.appends, appendCall{Spreadsheet: id, Range: rng, Query: r.URL.RawQuery, Body: body})
	_, _ = io.WriteString(w, `{"spreadsheetId":"x","updates":{"updatedRows":1}}`)
}

// token checks a JWT bearer grant as Google does and issues token-N.
func (g *google) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil || r.PostForm.Get("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer" {
		http.Error(w, `{"error":"unsupported_grant_type"}`, http.StatusBadRequest)
		return
	}
	claims, err := verifyRS256(r.PostForm.Get("assertion"), g.key)
	if err != nil || claims["iss"] != serviceEmail || claims["scope"] != "https://www.googleapis.com/auth/spreadsheets" ||
		claims["aud"] != "http://"+r.Host+"/token" {
		g.t.Errorf("token request refused: %v, claims %v", err, claims)
		http.Error(w, `{"error":"invalid_grant"}`, http.StatusBadRequest)
		return
	}
	g.issued++
	w.Header().Set("Content-Type", "application/json")
	_, _ = fmt.Fprintf(w, `{"access_token":"token-%d","token_type":"Bearer","expires_in":3600}`, g.issued)
}

// verifyRS256 checks a compact JWT's RS256 signature and returns its claims.
func verifyRS256(jwt string, key *rsa.PublicKey) (map[string]any, error) {
	parts := strings.Split(jwt, ".")
	if len(parts) != 3 {
		return nil, errors.New("not a compact JWT")
	}
	var header map[string]any
	if raw, err := base64.RawURLEncoding.DecodeString(parts[0]); err != nil || json.Unmarshal(raw, &header) != nil || header["alg"] != "RS256" {
		return nil, errors.New("header is not RS256")
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return nil, err
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if err := rsa.VerifyPKCS1v15(key, crypto.SHA256, digest[:], sig); err != nil {
		return nil, err
	}
	var claims map[string]any
	raw, _ := base64.RawURLEncoding.DecodeString(parts[1])
	if err := json.Unmarshal(raw, &claims); err != nil {
		return nil, err
	}
	if exp, _ := claims["exp"].(float64); int64(exp) < time.Now().Unix() {
		return nil, errors.New("expired")
	}
	return claims, nil
}

// serviceAccountFile writes a key file as Google's console downloads it.
func serviceAccountFile(t *testing.T, tokenURI string) (string, *rsa.PublicKey) {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKCS8PrivateKey(key)
	raw, _ := json.Marshal(map[string]string{
		"type": "service_account", "project_id": "p", "private_key_id": "kid-1", "client_email": serviceEmail,
		"private_key": string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})), "token_uri": tokenURI,
	})
	path := filepath.Join(t.TempDir(), "service-account.json")
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	return path, &key.PublicKey
}

func sheetsSender(t *testing.T) (*outbound.Sender, *google) {
	t.Helper()
	g := &google{t: t}
	srv := httptest.NewServer(g)
	t.Cleanup(srv.Close)
	file, pub := serviceAccountFile(t, "https://oauth2.googleapis.com/token")
	g.key = pub
	s, err := outbound.NewSender(outbound.Options{GoogleCredentialsFile: file, GoogleTokenURL: srv.URL + "/token", GoogleSheetsURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	return s, g
}

func TestSheetsAppendsARawRowWithACachedServiceAccountToken(t *testing.T) {
	s, g := sheetsSender(t)
	row := application.SheetRow{ID: "d1", SpreadsheetID: "1AbC-dEf_GhI", SheetName: "Leads 'EU'/2026", Values: []string{"2026-11-23T09:00:00Z", "=HYPERLINK(\"x\")", "Ada"}}
	for range 2 {
		if err := s.AppendRow(t.Context(), row); err != nil {
			t.Fatal(err)
		}
	}
	if g.issued != 1 {
		t.Errorf("tokens issued %d, want 1 reused until it expires", g.issued)
	}
	want := appendCall{Spreadsheet: "1AbC-dEf_GhI", Range: "'Leads ''EU''/2026'", Query: "valueInputOption=RAW&insertDataOption=INSERT_ROWS",
		Body: map[string]any{"range": "'Leads ''EU''/2026'", "majorDimension": "ROWS",
			"values": []any{[]any{"2026-11-23T09:00:00Z", "=HYPERLINK(\"x\")", "Ada"}}}}
	if len(g.appends) != 2 || !reflect.DeepEqual(g.appends[0], want) {
		t.Fatalf("appends %+v\nwant %+v", g.appends, want)
	}
	if !s.Configured(form.IntegrationGoogleSheets) || s.Configured(form.IntegrationTelegram) {
		t.Error("Configured should report Sheets and not Telegram")
	}
}

func TestSheetsFetchesANewTokenAfterTheAPIRefusedOne(t *testing.T) {
	s, g := sheetsSender(t)
	row := application.SheetRow{ID: "d1", SpreadsheetID: "1AbCdEfGhIjK", SheetName: "A", Values: []string{"x"}}
	if err := s.AppendRow(t.Context(), row); err != nil {
		t.Fatal(err)
	}
	g.refuse = "Bearer token-1" // revoked
	err := s.AppendRow(t.Context(), row)
	if err == nil || errors.Is(err, application.ErrPermanent) || !strings.Contains(err.Error(), "401") {
		t.Fatalf("a refused token: %v, want a retryable 401", err)
	}
	if err := s.AppendRow(t.Context(), row); err != nil || g.issued != 2 {
		t.Fatalf("the retry: %v with %d tokens issued, want success with a second token", err, g.issued)
	}
}

func TestSheetsWithoutAccessSaysWhomToShareWith(t *testing.T) {
	s, g := sheetsSender(t)
	g.status = http.StatusForbidden
	err := s.AppendRow(t.Context(), application.SheetRow{ID: "d1", SpreadsheetID: "1AbCdEfGhIjK", SheetName: "A", Values: []string{"x"}})
	if !errors.Is(err, application.ErrPermanent) || !strings.Contains(err.Error(), "share the spreadsheet with "+serviceEmail) {
		t.Errorf("err = %v, want a permanent failure naming the service account", err)
	}
}

func TestAServiceAccountFileIsCheckedWhenRead(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		_ = os.WriteFile(p, []byte(content), 0o600)
		return p
	}
	good, _ := serviceAccountFile(t, "")
	if sa, err := outbound.ReadServiceAccount(good); err != nil || sa.ClientEmail != serviceEmail {
		t.Fatalf("a good file: %+v, %v", sa, err)
	}
	for name, path := range map[string]string{
		"missing":         filepath.Join(dir, "nope.json"),
		"not JSON":        write("a.json", "hello"),
		"user credential": write("b.json", `{"type":"authorized_user","client_id":"x"}`),
		"bad key":         write("c.json", `{"type":"service_account","client_email":"a@b","private_key":"-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"}`),
	} {
		if _, err := outbound.ReadServiceAccount(path); err == nil {
			t.Errorf("%s: read without error", name)
		}
	}
}

func TestSheetsReadsTheProofCell(t *testing.T) {
	s, g := sheetsSender(t)
	g.cells = map[string]string{"1AbCdEfGhIjK formd!A1": "formd-proof-123"}
	got, err := s.ReadCell(context.Background(), "1AbCdEfGhIjK", "formd!A1")
	if err != nil || got != "formd-proof-123" {
		t.Fatalf("ReadCell = %q, %v", got, err)
	}
	if _, err := s.ReadCell(context.Background(), "1NotShared000", "formd!A1"); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("an unshared spreadsheet: %v", err)
	}
}
