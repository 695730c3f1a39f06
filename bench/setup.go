package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/formd/formd/adapters/mail/mailtest"
)

// Addresses the setup uses.
const (
	benchAccountEmail = "bench@example.com"
	benchRecipient    = "inbox@example.com"
	benchOrigin       = "https://example.com"
)

// SetupTimings says how long the setup steps took, in seconds.
type SetupTimings struct {
	BuildSeconds    float64 `json:"build"`
	StartSeconds    float64 `json:"start"`
	APISetupSeconds float64 `json:"apiSetup"`
}

// benchForm is the form the bench submits to, and what changes its settings.
type benchForm struct {
	// AccessKey goes in every submission.
	AccessKey string
	// ID and Credential (the account's session token, which formd keeps in
	// its database, so it outlives the formd that issued it) are what
	// PATCH /v1/forms/{id} needs.
	ID, Credential string
}

// Setup registers an account, verifies it, creates a form and verifies its
// recipient, all through the API and the mail spool.
func (f *Formd) Setup(ctx context.Context) (benchForm, error) {
	var auth struct {
		Credential string `json:"credential"`
	}
	if err := f.call(ctx, "POST", "/agent/auth", "", map[string]any{"email": benchAccountEmail}, http.StatusOK, &auth); err != nil {
		return benchForm{}, err
	}
	if auth.Credential == "" {
		return benchForm{}, errors.New("POST /agent/auth answered no credential")
	}
	if err := f.followVerification(ctx, benchAccountEmail, nil); err != nil {
		return benchForm{}, fmt.Errorf("account verification: %w", err)
	}
	seen, err := f.mailsTo(benchRecipient)
	if err != nil {
		return benchForm{}, err
	}
	var created struct {
		Form struct {
			ID        string `json:"id"`
			AccessKey string `json:"accessKey"`
		} `json:"form"`
	}
	form := map[string]any{"name": "Bench", "recipientEmail": benchRecipient, "allowedDomains": []string{"example.com"}}
	if err := f.call(ctx, "POST", "/v1/forms", auth.Credential, form, http.StatusCreated, &created); err != nil {
		return benchForm{}, err
	}
	if created.Form.AccessKey == "" || created.Form.ID == "" {
		return benchForm{}, errors.New("POST /v1/forms answered no form.accessKey or form.id")
	}
	if err := f.followVerification(ctx, benchRecipient, seen); err != nil {
		return benchForm{}, fmt.Errorf("recipient verification: %w", err)
	}
	return benchForm{AccessKey: created.Form.AccessKey, ID: created.Form.ID, Credential: auth.Credential}, nil
}

// call sends a JSON request and decodes a JSON answer with the wanted status.
func (f *Formd) call(ctx context.Context, method, path, bearer string, body any, want int, out any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, method, f.URL+path, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	resp, err := f.client.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != want {
		return fmt.Errorf("%s %s: HTTP %d, want %d: %s", method, path, resp.StatusCode, want, raw)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("%s %s: decoding %s: %w", method, path, raw, err)
	}
	return nil
}

// A token is "<key id>.<MAC>": the dot belongs to it.
var verifyLinkRE = regexp.MustCompile(`http://[^\s"'<>]+/verify/[A-Za-z0-9_.-]+`)

// followVerification waits (up to 15 s) for a mail to `to` that is not in
// seen and carries a verification link, and confirms it as the link's page
// does: a POST (opening the link with a GET verifies nothing).
func (f *Formd) followVerification(ctx context.Context, to string, seen map[string]string) error {
	deadline := time.Now().Add(15 * time.Second)
	for {
		mails, err := f.mailsTo(to)
		if err != nil {
			return err
		}
		for name, text := range mails {
			if _, old := seen[name]; old {
				continue
			}
			if link := verifyLinkRE.FindString(text); link != "" {
				return f.confirm(ctx, link)
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no mail with a verification link to %s in %s within 15 s", to, f.Spool)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (f *Formd) confirm(ctx context.Context, link string) error {
	if !strings.HasPrefix(link, f.URL+"/") {
		return fmt.Errorf("verification link %s does not point at formd (%s)", link, f.URL)
	}
	req, err := http.NewRequestWithContext(ctx, "POST", link, strings.NewReader(""))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := f.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("POST %s: HTTP %d: %s", link, resp.StatusCode, raw)
	}
	return nil
}

// mailsTo reads the spooled mails addressed to `to`: file name → decoded text.
func (f *Formd) mailsTo(to string) (map[string]string, error) {
	files, err := filepath.Glob(filepath.Join(f.Spool, "*.eml"))
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, name := range files {
		raw, err := os.ReadFile(name)
		if err != nil {
			continue // renamed or half-written: the next poll sees it
		}
		m, err := mailtest.Parse(raw)
		if err != nil {
			return nil, fmt.Errorf("decoding %s: %w", name, err)
		}
		if slices.ContainsFunc(m.To(), func(a string) bool { return strings.EqualFold(a, to) }) {
			out[filepath.Base(name)] = m.Text
		}
	}
	return out, nil
}
