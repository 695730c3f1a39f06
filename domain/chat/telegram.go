package chat

import (
	"encoding/json"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/formd/formd/domain/submission"
)

// TelegramLimit is the most characters Telegram takes in a message's text
// (counted in UTF-16 code units, as its API counts them); a longer message
// is refused with 400, so it is truncated instead.
const TelegramLimit = 4096

// TelegramMessage is the JSON body of a Bot API sendMessage call to chatID:
// the form's name (marked, with the verdict, when spam is a tagged
// submission's; nil otherwise) and each field on its own line. It is sent as plain text
// (no parse_mode), so nothing a submitter typed is read as markup, and with
// link previews off, so a submitted link fetches nothing.
func TelegramMessage(chatID, formName string, spam *submission.SpamVerdict, fields []submission.Field) ([]byte, error) {
	var b strings.Builder
	b.WriteString(heading(formName, spam, plain))
	for _, f := range fields {
		b.WriteString("\n" + f.Name + ": " + f.Value)
	}
	type linkPreview struct {
		IsDisabled bool `json:"is_disabled"`
	}
	return json.Marshal(struct {
		ChatID      string      `json:"chat_id"`
		Text        string      `json:"text"`
		LinkPreview linkPreview `json:"link_preview_options"`
	}{chatID, shortenUTF16(b.String(), TelegramLimit), linkPreview{IsDisabled: true}})
}

// shortenUTF16 keeps s within limit UTF-16 code units, ending a cut text
// with an ellipsis and never splitting a surrogate pair.
func shortenUTF16(s string, limit int) string {
	if len(utf16.Encode([]rune(s))) <= limit {
		return s
	}
	units := 0
	var out []rune
	for _, r := range s {
		n := utf16.RuneLen(r)
		if units+n > limit-1 { // one unit left for the ellipsis
			break
		}
		units += n
		out = append(out, r)
	}
	return string(out) + ellipsis
}

// SheetCellLimit is the most characters Google Sheets keeps in a cell; a
// longer value would make the whole append fail, so it is truncated.
const SheetCellLimit = 50000

// SheetRow is the row a Google Sheets integration appends for a submission:
// the time it was accepted (RFC 3339, UTC), then the fields' values in the
// alphabetical order of their names, so a column holds the same field from
// one submission to the next whatever order the fields were posted in.
// Values are sent with valueInputOption RAW: a value starting with = stays
// text and is never run as a formula.
func SheetRow(at time.Time, fields []submission.Field) []string {
	sorted := append([]submission.Field(nil), fields...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	row := make([]string, 0, len(sorted)+1)
	row = append(row, at.UTC().Format(time.RFC3339))
	for _, f := range sorted {
		row = append(row, shorten(f.Value, SheetCellLimit))
	}
	return row
}

// startCode matches a connect code: Telegram's deep-link parameters are
// letters, digits, _ and -, at most 64.
var startCode = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// StartCode reads the code of a "/start <code>" message, as a deep link
// sends it or someone types it ("/start@bot <code>" in a group).
func StartCode(text string) (string, bool) {
	fields := strings.Fields(text)
	if len(fields) != 2 || (fields[0] != "/start" && !strings.HasPrefix(fields[0], "/start@")) || !startCode.MatchString(fields[1]) {
		return "", false
	}
	return fields[1], true
}
