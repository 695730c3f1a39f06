package outbound_test

import (
	"context"
	"encoding/pem"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/formd/formd/adapters/outbound"
	"github.com/formd/formd/application"
)

// received is one request as the receiver saw it.
type received struct {
	header http.Header
	body   string
}

// receiver is a real HTTP server on loopback answering status, recording
// what it receives.
func receiver(t *testing.T, status int) (*httptest.Server, <-chan received) {
	t.Helper()
	got := make(chan received, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.Method != http.MethodPost {
			t.Errorf("method %s, want POST", r.Method)
		}
		got <- received{header: r.Header.Clone(), body: string(body)}
		if status >= 300 && status < 400 {
			w.Header().Set("Location", "/elsewhere")
		}
		w.WriteHeader(status)
	}))
	t.Cleanup(srv.Close)
	return srv, got
}

func sender(t *testing.T, o outbound.Options) *outbound.Sender {
	t.Helper()
	s, err := outbound.NewSender(o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func send(t *testing.T, s *outbound.Sender, url string) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	return s.Send(ctx, application.Webhook{ID: "d-42", URL: url, Body: []byte(`{"email":"a@example.com"}`)})
}

func TestSendPostsTheDeliveryWithItsID(t *testing.T) {
	srv, got := receiver(t, http.StatusNoContent)
	before := time.Now().Unix()
	if err := send(t, sender(t, outbound.Options{AllowPrivate: true}), srv.URL+"/hook"); err != nil {
		t.Fatalf("Send to a 204 receiver: %v", err)
	}
	r := <-got
	if r.body != `{"email":"a@example.com"}` {
		t.Errorf("body %q", r.body)
	}
	if r.header.Get("Content-Type") != "application/json" || r.header.Get("webhook-id") != "d-42" {
		t.Errorf("headers %v: want application/json and webhook-id d-42", r.header)
	}
	ts, err := strconv.ParseInt(r.header.Get("webhook-timestamp"), 10, 64)
	if err != nil || ts < before || ts > time.Now().Unix() {
		t.Errorf("webhook-timestamp %q is not the send time", r.header.Get("webhook-timestamp"))
	}
	if _, signed := r.header["Webhook-Signature"]; signed {
		t.Errorf("an unsigned webhook carries webhook-signature %q", r.header.Get("webhook-signature"))
	}
}

// The signature covers the timestamp the application chose, so the sender
// must put that one, and the signature as given, on the request.
func TestSendCarriesTheSignatureAndItsTimestamp(t *testing.T) {
	srv, got := receiver(t, http.StatusOK)
	w := application.Webhook{ID: "d-43", URL: srv.URL, Body: []byte(`{}`), Timestamp: 1700000000, Signature: "v1,abc= v1,def="}
	if err := sender(t, outbound.Options{AllowPrivate: true}).Send(t.Context(), w); err != nil {
		t.Fatal(err)
	}
	r := <-got
	if r.header.Get("webhook-timestamp") != "1700000000" || r.header.Get("webhook-signature") != "v1,abc= v1,def=" {
		t.Errorf("headers %v: want the given timestamp and signature", r.header)
	}
}

func TestSendClassifiesAnswers(t *testing.T) {
	s := sender(t, outbound.Options{AllowPrivate: true})
	tests := []struct {
		status    int
		ok        bool
		permanent bool
	}{
		{200, true, false},
		{202, true, false},
		{302, false, false}, // redirects are not followed: a receiver may not bounce us elsewhere
		{400, false, true},
		{404, false, true},
		{410, false, true},
		{408, false, false},
		{429, false, false},
		{500, false, false},
		{503, false, false},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.status), func(t *testing.T) {
			srv, got := receiver(t, tt.status)
			err := send(t, s, srv.URL)
			if (err == nil) != tt.ok {
				t.Fatalf("Send to a %d receiver = %v, want ok=%v", tt.status, err, tt.ok)
			}
			if got := errors.Is(err, application.ErrPermanent); got != tt.permanent {
				t.Errorf("Send to a %d receiver = %v: permanent=%v, want %v", tt.status, err, got, tt.permanent)
			}
			if gone := errors.Is(err, application.ErrGone); gone != (tt.status == http.StatusGone) {
				t.Errorf("Send to a %d receiver = %v: gone=%v", tt.status, err, gone)
			}
			if n := len(got); n != 1 {
				t.Errorf("receiver got %d requests, want 1", n)
			}
		})
	}
}

func TestSendRefusesInternalAddressesWithoutTheTestAllowance(t *testing.T) {
	srv, got := receiver(t, http.StatusOK)
	s := sender(t, outbound.Options{})
	for _, url := range []string{srv.URL, "http://127.0.0.1:80/", "http://[::1]:443/", "http://10.0.0.1/", "http://169.254.169.254/latest/meta-data"} {
		if err := send(t, s, url); err == nil {
			t.Errorf("Send(%s) succeeded without the private-network allowance", url)
		}
	}
	if n := len(got); n != 0 {
		t.Fatalf("the loopback receiver got %d requests; the guard must refuse at dial time", n)
	}
}

func TestSendRefusesAMalformedURLPermanently(t *testing.T) {
	err := send(t, sender(t, outbound.Options{AllowPrivate: true}), "http://exa mple.com/")
	if !errors.Is(err, application.ErrPermanent) {
		t.Fatalf("Send(malformed URL) = %v, want a permanent failure", err)
	}
}

func TestSendTrustsTheConfiguredCA(t *testing.T) {
	got := make(chan struct{}, 1)
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got <- struct{}{} }))
	t.Cleanup(srv.Close)
	if err := send(t, sender(t, outbound.Options{AllowPrivate: true}), srv.URL); err == nil {
		t.Fatal("Send trusted a certificate from an unknown authority")
	}
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	cert := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(caFile, cert, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := send(t, sender(t, outbound.Options{AllowPrivate: true, CAFile: caFile}), srv.URL); err != nil {
		t.Fatalf("Send with the receiver's CA configured: %v", err)
	}
	if len(got) != 1 {
		t.Fatal("the TLS receiver got no request")
	}
	if err := os.WriteFile(caFile, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := outbound.NewSender(outbound.Options{CAFile: caFile}); err == nil {
		t.Fatal("NewSender accepted a CA file without a certificate")
	}
}
