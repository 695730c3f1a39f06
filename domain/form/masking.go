package form

import (
	"encoding/json"
	"net/url"
	"strings"
)

// maskedTail is how many of a URL's last characters a masked URL shows,
// and minTailSource how long the rest of the URL must be before any are
// shown: a short path is hidden whole.
const (
	maskedTail    = 4
	minTailSource = 12
)

// MaskURL shows a saved URL as API keys are shown once saved: its scheme,
// its host and the last four characters of the rest, such as
// https://hooks.slack.com/…abcd. A Slack or Discord incoming-webhook URL is
// its own credential (whoever holds it can post), and a webhook's path,
// query or user information may carry one too; formd sends to the URL but
// never shows it again. The owner recognises it by host and tail.
func MaskURL(raw string) string {
	if raw == "" {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "…"
	}
	// Everything after the host: path, query and fragment.
	rest := u.EscapedPath()
	if u.RawQuery != "" {
		rest += "?" + u.RawQuery
	}
	if u.Fragment != "" {
		rest += "#" + u.EscapedFragment()
	}
	masked := u.Scheme + "://" + u.Host + "/…"
	if len(rest) >= minTailSource {
		masked += rest[len(rest)-maskedTail:]
	}
	return masked
}

// Masked is the integration as every view shows it once saved: its
// target URL masked (MaskURL). Chat ids, spreadsheet ids and sheet names
// are not credentials (the bot and the service account hold the access)
// and stay as they are.
func (in Integration) Masked() Integration {
	in.TargetURL = MaskURL(in.TargetURL)
	return in
}

// MaskedChange is c as the audit trail shows it: an integration's target
// URL, before and after, masked like the integration itself.
func MaskedChange(c Change) Change {
	if !strings.HasPrefix(c.Field, "integrations.") || !strings.HasSuffix(c.Field, ".targetUrl") {
		return c
	}
	c.From, c.To = maskedJSONURL(c.From), maskedJSONURL(c.To)
	return c
}

// maskedJSONURL masks a URL held as a JSON string; anything else (null)
// is kept.
func maskedJSONURL(raw json.RawMessage) json.RawMessage {
	var s string
	if !strings.HasPrefix(string(raw), `"`) || json.Unmarshal(raw, &s) != nil {
		return raw
	}
	out, _ := json.Marshal(MaskURL(s))
	return out
}
