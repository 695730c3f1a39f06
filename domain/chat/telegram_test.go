package chat_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/formd/formd/domain/chat"
	"github.com/formd/formd/domain/submission"
)

func TestTelegramMessageIsPlainTextWithoutPreviews(t *testing.T) {
	body, err := chat.TelegramMessage("-1001234", "Sales & <Support>", nil,
		[]submission.Field{{Name: "name", Value: "*Ada*"}, {Name: "site", Value: "<b>https://x.example</b>"}})
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"chat_id":              "-1001234",
		"text":                 "New submission to Sales & <Support>\nname: *Ada*\nsite: <b>https://x.example</b>",
		"link_preview_options": map[string]any{"is_disabled": true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("TelegramMessage = %v, want %v (no parse_mode: values shown as typed)", got, want)
	}
}

func TestTelegramMessageKeepsWithinTheLimitInUTF16Units(t *testing.T) {
	for name, value := range map[string]string{
		"ascii":  strings.Repeat("a", 5000),
		"astral": strings.Repeat("😀", 3000), // two UTF-16 units each: a cut must not split a pair
	} {
		t.Run(name, func(t *testing.T) {
			body, _ := chat.TelegramMessage("1", "F", nil, []submission.Field{{Name: "m", Value: value}})
			var got struct{ Text string }
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatal(err)
			}
			units := utf16.Encode([]rune(got.Text))
			if len(units) > chat.TelegramLimit || len(units) < chat.TelegramLimit-1 {
				t.Errorf("text is %d UTF-16 units, want at most %d and no shorter than needed", len(units), chat.TelegramLimit)
			}
			if !strings.HasSuffix(got.Text, "…") || strings.ContainsRune(got.Text, '\uFFFD') {
				t.Errorf("a cut text ends with an ellipsis and holds whole characters: %q", got.Text[len(got.Text)-12:])
			}
		})
	}
	short, _ := chat.TelegramMessage("1", "F", nil, []submission.Field{{Name: "m", Value: "hi"}})
	if strings.Contains(string(short), "…") {
		t.Errorf("a short message is not cut: %s", short)
	}
}

func TestSheetRowOrdersValuesByFieldName(t *testing.T) {
	at := time.Date(2026, 11, 23, 10, 4, 5, 0, time.FixedZone("CET", 3600))
	a := chat.SheetRow(at, []submission.Field{{Name: "name", Value: "Ada"}, {Name: "email", Value: "ada@example.com"}, {Name: "msg", Value: "=1+1"}})
	b := chat.SheetRow(at, []submission.Field{{Name: "msg", Value: "=1+1"}, {Name: "name", Value: "Ada"}, {Name: "email", Value: "ada@example.com"}})
	want := []string{"2026-11-23T09:04:05Z", "ada@example.com", "=1+1", "Ada"}
	if !reflect.DeepEqual(a, want) || !reflect.DeepEqual(b, want) {
		t.Errorf("SheetRow = %q and %q, want %q whatever the posted order", a, b, want)
	}
	long := chat.SheetRow(at, []submission.Field{{Name: "m", Value: strings.Repeat("x", chat.SheetCellLimit+10)}})
	if n := len([]rune(long[1])); n != chat.SheetCellLimit {
		t.Errorf("a long value is %d characters, want %d", n, chat.SheetCellLimit)
	}
}

func TestStartCode(t *testing.T) {
	for text, want := range map[string]string{
		"/start ABC123":                     "ABC123",
		"/start@formd_bot ab_c-9":           "ab_c-9",
		"  /start   CODE  ":                 "CODE",
		"/start":                            "",
		"/start a b":                        "",
		"/stop CODE":                        "",
		"/startgroup CODE":                  "",
		"/start <script>":                   "",
		"hello /start CODE":                 "",
		"/start " + strings.Repeat("a", 65): "",
	} {
		got, ok := chat.StartCode(text)
		if got != want || ok != (want != "") {
			t.Errorf("StartCode(%q) = %q, %v; want %q", text, got, ok, want)
		}
	}
}
