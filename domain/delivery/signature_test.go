package delivery_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/formd/formd/domain/delivery"
)

// verify is an independent implementation of Standard Webhooks verification,
// as a receiver writes it from the specification: decode the secret after
// "whsec_", HMAC "{id}.{timestamp}.{body}", and compare in constant time
// with each "v1," entry of the space-separated header.
func verify(secret, id, timestamp string, body []byte, header string) bool {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		return false
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(fmt.Sprintf("%s.%s.%s", id, timestamp, body)))
	want := mac.Sum(nil)
	for _, entry := range strings.Split(header, " ") {
		version, sig, ok := strings.Cut(entry, ",")
		if !ok || version != "v1" {
			continue
		}
		got, err := base64.StdEncoding.DecodeString(sig)
		if err == nil && hmac.Equal(got, want) {
			return true
		}
	}
	return false
}

func TestWebhookSignatureVerifiesIndependently(t *testing.T) {
	current := "whsec_" + base64.StdEncoding.EncodeToString([]byte("0123456789abcdef0123456789abcdef"))
	previous := "whsec_" + base64.StdEncoding.EncodeToString([]byte("fedcba9876543210fedcba9876543210"))
	other := "whsec_" + base64.StdEncoding.EncodeToString([]byte("not the secret of this form at all"))
	body := []byte(`{"type":"submission.accepted","data":{"message":"hi"}}`)

	one, err := delivery.WebhookSignature("msg_1", 1700000000, body, []string{current})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(one, " ") || !strings.HasPrefix(one, "v1,") {
		t.Errorf("one secret gave %q, want a single v1 signature", one)
	}
	if !verify(current, "msg_1", "1700000000", body, one) {
		t.Error("the signature does not verify with its secret")
	}
	for name, tamper := range map[string]func() bool{
		"another secret":    func() bool { return verify(other, "msg_1", "1700000000", body, one) },
		"another id":        func() bool { return verify(current, "msg_2", "1700000000", body, one) },
		"another timestamp": func() bool { return verify(current, "msg_1", "1700000001", body, one) },
		"another body":      func() bool { return verify(current, "msg_1", "1700000000", []byte(`{}`), one) },
	} {
		if tamper() {
			t.Errorf("the signature verifies with %s", name)
		}
	}

	both, err := delivery.WebhookSignature("msg_1", 1700000000, body, []string{current, previous})
	if err != nil {
		t.Fatal(err)
	}
	entries := strings.Split(both, " ")
	if len(entries) != 2 {
		t.Fatalf("two secrets gave %q, want two space-separated signatures", both)
	}
	for i, secret := range []string{current, previous} {
		if !verify(secret, "msg_1", "1700000000", body, entries[i]) {
			t.Errorf("signature %d does not verify with its secret", i)
		}
	}
	if verify(other, "msg_1", "1700000000", body, both) {
		t.Error("the rotation header verifies with an unrelated secret")
	}
}

func TestWebhookSignatureWithoutSecretsIsBlank(t *testing.T) {
	sig, err := delivery.WebhookSignature("msg_1", 1, []byte(`{}`), nil)
	if err != nil || sig != "" {
		t.Fatalf("WebhookSignature(no secrets) = %q, %v; want blank", sig, err)
	}
}

func TestWebhookSignatureRefusesMalformedSecrets(t *testing.T) {
	for _, s := range []string{"", "0123456789", "whsec_", "whsec_not base64!"} {
		if _, err := delivery.WebhookSignature("msg_1", 1, []byte(`{}`), []string{s}); !errors.Is(err, delivery.ErrMalformedWebhookSecret) {
			t.Errorf("secret %q: err %v, want ErrMalformedWebhookSecret", s, err)
		}
	}
}
