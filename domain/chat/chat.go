// Package chat builds the messages chat integrations post for an accepted
// submission: Slack's incoming-webhook payload (which Mattermost and
// Rocket.Chat accept too) and Discord's. Submitted values are the
// submitter's, so each service's markup is escaped: a value shows as typed
// and can never ping a channel or forge a link.
package chat

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/formd/formd/domain/submission"
)

// DiscordLimit is the most characters Discord takes in a message's content;
// a longer one is refused with 400, which would lose the submission's
// message for good, so it is truncated instead.
const DiscordLimit = 2000

// ellipsis marks a truncated message.
const ellipsis = "…"

// SlackMessage is the JSON body of a Slack incoming webhook: the form's name
// (marked, with the verdict, when spam is a tagged submission's; nil
// otherwise) and each field on its own line. Slack reads only &, < and > as markup
// controls (links and mentions are written <…>), so escaping those three
// leaves nothing a submitter can make Slack act on.
func SlackMessage(formName string, spam *submission.SpamVerdict, fields []submission.Field) ([]byte, error) {
	var b strings.Builder
	b.WriteString(heading(formName, spam, slackEscape))
	for _, f := range fields {
		b.WriteString("\n" + slackEscape(f.Name) + ": " + slackEscape(f.Value))
	}
	return json.Marshal(struct {
		Text string `json:"text"`
	}{b.String()})
}

var slackEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

func slackEscape(s string) string { return slackEscaper.Replace(s) }

// discordMentions is Discord's allowed_mentions with nothing allowed: even
// an unescaped mention pings no one.
type discordMentions struct {
	Parse []string `json:"parse"`
}

// DiscordMessage is the JSON body of a Discord incoming webhook: the form's
// name (marked, with the verdict, when spam is a tagged submission's; nil
// otherwise) and each field on its own line, markdown escaped, mentions both
// neutralised in the text and disallowed, within DiscordLimit characters.
func DiscordMessage(formName string, spam *submission.SpamVerdict, fields []submission.Field) ([]byte, error) {
	var b strings.Builder
	b.WriteString(heading(formName, spam, discordEscape))
	for _, f := range fields {
		b.WriteString("\n" + discordEscape(f.Name) + ": " + discordEscape(f.Value))
	}
	return json.Marshal(struct {
		Content         string          `json:"content"`
		AllowedMentions discordMentions `json:"allowed_mentions"`
	}{shorten(b.String(), DiscordLimit), discordMentions{Parse: []string{}}})
}

// discordEscaper puts a backslash before each of Discord's markdown
// characters and a zero-width space after @, so @everyone, @here and <@id>
// show as text rather than mentions. [ and # are escaped too: a masked link
// [text](url) would let a submitter disguise where a link goes, and # starts
// a heading or a <#channel> link.
var discordEscaper = strings.NewReplacer(
	`\`, `\\`, "*", `\*`, "_", `\_`, "~", `\~`, "`", "\\`", "|", `\|`, ">", `\>`, "[", `\[`, "#", `\#`, "@", "@\u200b",
)

func discordEscape(s string) string { return discordEscaper.Replace(s) }

// shorten keeps s within limit characters (runes, as Discord and Sheets
// count them), ending a cut message with an ellipsis; domain.Truncate is the
// byte cut for storage, which marks nothing. A cut never leaves a lone
// escaping backslash at the end, which would escape the ellipsis instead.
func shorten(s string, limit int) string {
	if utf8.RuneCountInString(s) <= limit {
		return s
	}
	r := []rune(s)[:limit-utf8.RuneCountInString(ellipsis)]
	trailing := 0
	for i := len(r) - 1; i >= 0 && r[i] == '\\'; i-- {
		trailing++
	}
	if trailing%2 == 1 {
		r = r[:len(r)-1]
	}
	return string(r) + ellipsis
}
