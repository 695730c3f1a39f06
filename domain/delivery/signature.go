package delivery

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
)

// WebhookSecretPrefix starts every webhook signing secret (Standard Webhooks).
const WebhookSecretPrefix = "whsec_"

// ErrMalformedWebhookSecret is a signing secret that is not "whsec_" and
// base64: signing with it would produce signatures no receiver can check.
var ErrMalformedWebhookSecret = errors.New("malformed webhook signing secret")

// RedactedWebhookSignature stands for one signature in what a webhook
// would have sent (the test inbox): it is not base64, so no receiver can
// mistake it for a signature, and no secret went into it.
const RedactedWebhookSignature = "v1,<redacted>"

// RedactedWebhookSignatures is the webhook-signature header as a rendering
// shows it: one RedactedWebhookSignature per secret that would sign the
// request, blank when none would.
func RedactedWebhookSignatures(secrets int) string {
	return strings.TrimSpace(strings.Repeat(RedactedWebhookSignature+" ", secrets))
}

// WebhookSignature is the webhook-signature header of Standard Webhooks
// (standardwebhooks.com): for each secret, "v1," and the base64 HMAC-SHA256
// of "{id}.{timestamp}.{body}" keyed with the secret's decoded bytes,
// separated by spaces. During a rotation's overlap a delivery carries one
// signature per valid secret, so receivers holding either secret accept it.
// It is blank when there are no secrets (an unsigned per-submit webhook).
func WebhookSignature(id string, timestamp int64, body []byte, secrets []string) (string, error) {
	signed := make([]string, 0, len(secrets))
	for _, s := range secrets {
		key, err := webhookSecretBytes(s)
		if err != nil {
			return "", err
		}
		mac := hmac.New(sha256.New, key)
		mac.Write([]byte(id + "." + strconv.FormatInt(timestamp, 10) + "."))
		mac.Write(body)
		signed = append(signed, "v1,"+base64.StdEncoding.EncodeToString(mac.Sum(nil)))
	}
	return strings.Join(signed, " "), nil
}

// webhookSecretBytes decodes the part of a secret after "whsec_"; the error
// never holds the secret.
func webhookSecretBytes(secret string) ([]byte, error) {
	encoded, ok := strings.CutPrefix(secret, WebhookSecretPrefix)
	if !ok {
		return nil, ErrMalformedWebhookSecret
	}
	key, err := base64.StdEncoding.DecodeString(encoded)
	if err != nil || len(key) == 0 {
		return nil, ErrMalformedWebhookSecret
	}
	return key, nil
}
