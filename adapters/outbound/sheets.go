package outbound

import (
	"bytes"
	"context"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/jwt"

	"github.com/formd/formd/application"
)

// Google's addresses, used unless configured otherwise.
const (
	DefaultGoogleTokenURL  = "https://oauth2.googleapis.com/token"
	DefaultGoogleSheetsURL = "https://sheets.googleapis.com"
)

// sheetsScope is the one scope the service account asks for: read and
// write the spreadsheets shared with it, nothing else of the account.
const sheetsScope = "https://www.googleapis.com/auth/spreadsheets"

// ServiceAccount is what formd reads of a Google service account key file.
type ServiceAccount struct {
	Type         string `json:"type"`
	ClientEmail  string `json:"client_email"`
	PrivateKey   string `json:"private_key"`
	PrivateKeyID string `json:"private_key_id"`
	TokenURI     string `json:"token_uri"`
}

// ReadServiceAccount reads and checks a service account key file, so a
// wrong file is refused when formd starts rather than at the first row.
func ReadServiceAccount(path string) (ServiceAccount, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return ServiceAccount{}, err
	}
	var sa ServiceAccount
	if err := json.Unmarshal(raw, &sa); err != nil {
		return ServiceAccount{}, fmt.Errorf("not a service account key file (JSON): %v", err)
	}
	if sa.Type != "service_account" || sa.ClientEmail == "" || sa.PrivateKey == "" {
		return ServiceAccount{}, errors.New(`not a service account key file: it needs "type": "service_account", client_email and private_key`)
	}
	if err := checkRSAKey(sa.PrivateKey); err != nil {
		return ServiceAccount{}, fmt.Errorf("its private_key cannot be read: %v", err)
	}
	return sa, nil
}

// checkRSAKey makes the parse the token source will make on every token:
// a PEM RSA key, PKCS #8 as Google writes it or PKCS #1.
func checkRSAKey(key string) error {
	block, _ := pem.Decode([]byte(key))
	if block == nil {
		return errors.New("no PEM block")
	}
	if k, err := x509.ParsePKCS8PrivateKey(block.Bytes); err == nil {
		if _, ok := k.(*rsa.PrivateKey); !ok {
			return errors.New("not an RSA key")
		}
		return nil
	}
	_, err := x509.ParsePKCS1PrivateKey(block.Bytes)
	return err
}

// sheets appends rows with the Sheets API as the operator's service
// account. Its access token is fetched with a signed JWT and reused until
// it expires; a token the API refuses is dropped and fetched again.
type sheets struct {
	account  ServiceAccount
	tokenURL string
	apiURL   string

	mu     sync.Mutex
	client *http.Client
	tokens oauth2.TokenSource
}

func newSheets(credentialsFile, tokenURL, apiURL string) (*sheets, error) {
	sa, err := ReadServiceAccount(credentialsFile)
	if err != nil {
		return nil, fmt.Errorf("google credentials %s: %w", credentialsFile, err)
	}
	if tokenURL == "" {
		tokenURL = sa.TokenURI
	}
	if tokenURL == "" {
		tokenURL = DefaultGoogleTokenURL
	}
	if apiURL == "" {
		apiURL = DefaultGoogleSheetsURL
	}
	return &sheets{account: sa, tokenURL: tokenURL, apiURL: strings.TrimRight(apiURL, "/")}, nil
}

// start gives the token source the operator client to fetch tokens with.
func (g *sheets) start(client *http.Client) {
	g.client = client
	g.renewTokens()
}

// renewTokens starts a fresh token cache.
func (g *sheets) renewTokens() {
	conf := &jwt.Config{Email: g.account.ClientEmail, PrivateKey: []byte(g.account.PrivateKey), PrivateKeyID: g.account.PrivateKeyID,
		Scopes: []string{sheetsScope}, TokenURL: g.tokenURL}
	g.mu.Lock()
	defer g.mu.Unlock()
	// The token source keeps this context for every fetch: it carries the
	// client, and no deadline of the delivery that happened to come first.
	g.tokens = conf.TokenSource(context.WithValue(context.Background(), oauth2.HTTPClient, g.client))
}

func (g *sheets) token() (*oauth2.Token, error) {
	g.mu.Lock()
	tokens := g.tokens
	g.mu.Unlock()
	return tokens.Token()
}

// sheetsAppend is the body of spreadsheets.values.append.
type sheetsAppend struct {
	Range          string     `json:"range"`
	MajorDimension string     `json:"majorDimension"`
	Values         [][]string `json:"values"`
}

// sheetsError is the Sheets API's error answer.
type sheetsError struct {
	Error struct {
		Message string `json:"message"`
		Status  string `json:"status"`
	} `json:"error"`
}

// callSheets makes one Sheets API call as the operator's service account
// and answers the response's status and its body (up to 64 KiB). A 401
// means a token revoked or expired early: the next call fetches a new one.
func (s *Sender) callSheets(ctx context.Context, method, endpoint string, body []byte) (*sheets, *http.Response, []byte, error) {
	g := s.sheets
	if g == nil {
		return nil, nil, nil, permanent("google sheets is not configured on this server (FORMD_GOOGLE_CREDENTIALS_FILE)")
	}
	tok, err := g.token()
	if err != nil {
		// The operator's credentials or Google's token service: retried,
		// since either can be fixed without the owner.
		return nil, nil, nil, fmt.Errorf("google token for %s: %v", g.account.ClientEmail, withoutURL(err))
	}
	var reader io.Reader
	if body != nil {
		reader = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, g.apiURL+endpoint, reader)
	if err != nil {
		return nil, nil, nil, permanent("sheets request: %v", withoutURL(err))
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("User-Agent", "formd-sheets/1")
	tok.SetAuthHeader(req)
	resp, err := s.operator.Do(req)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("google sheets: %w", transportError(req.URL.Hostname(), err))
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode == http.StatusUnauthorized {
		g.renewTokens()
	}
	return g, resp, raw, nil
}

// AppendRow implements application.Outbound: spreadsheets.values.append of
// one row after the sheet's last one, with valueInputOption=RAW so nothing
// submitted is read as a formula.
func (s *Sender) AppendRow(ctx context.Context, r application.SheetRow) error {
	a1 := "'" + strings.ReplaceAll(r.SheetName, "'", "''") + "'"
	body, err := json.Marshal(sheetsAppend{Range: a1, MajorDimension: "ROWS", Values: [][]string{r.Values}})
	if err != nil {
		return permanent("%v", err)
	}
	g, resp, raw, err := s.callSheets(ctx, http.MethodPost, fmt.Sprintf("/v4/spreadsheets/%s/values/%s:append?valueInputOption=RAW&insertDataOption=INSERT_ROWS",
		url.PathEscape(r.SpreadsheetID), url.PathEscape(a1)), body)
	if err != nil {
		return err
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return nil
	}
	var answer sheetsError
	_ = json.Unmarshal(raw, &answer)
	reason := fmt.Sprintf("google sheets answered %d", resp.StatusCode)
	if m := answer.Error.Message; m != "" {
		reason += ": " + oneLine(m, 200)
	}
	switch resp.StatusCode {
	case http.StatusUnauthorized:
		return errors.New(reason)
	case http.StatusForbidden, http.StatusNotFound:
		reason += fmt.Sprintf(" (share the spreadsheet with %s as an editor)", g.account.ClientEmail)
	}
	return statusError(resp, reason)
}

// ReadCell implements application.SheetCells: spreadsheets.values.get of
// one cell as the operator's service account, its formatted value.
func (s *Sender) ReadCell(ctx context.Context, spreadsheetID, a1 string) (string, error) {
	_, resp, raw, err := s.callSheets(ctx, http.MethodGet, fmt.Sprintf("/v4/spreadsheets/%s/values/%s?majorDimension=ROWS",
		url.PathEscape(spreadsheetID), url.PathEscape(a1)), nil)
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("google sheets answered %d", resp.StatusCode)
	}
	var answer struct {
		Values [][]string `json:"values"`
	}
	if err := json.Unmarshal(raw, &answer); err != nil {
		return "", fmt.Errorf("google sheets: %v", err)
	}
	if len(answer.Values) == 0 || len(answer.Values[0]) == 0 {
		return "", nil
	}
	return answer.Values[0][0], nil
}
