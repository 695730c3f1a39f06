package outbound_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/formd/formd/application"
)

func TestTelegramUpdatesReadsMessagesAndChannelPostsAndTheBotsName(t *testing.T) {
	var getMe atomic.Int32
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		switch r.URL.Path {
		case "/bot" + botToken + "/getUpdates":
			var q map[string]any
			_ = json.Unmarshal(body, &q)
			if q["offset"] != float64(41) || q["timeout"] != float64(3) {
				t.Errorf("getUpdates %s", body)
			}
			_, _ = io.WriteString(w, `{"ok":true,"result":[
				{"update_id":41,"message":{"message_id":1,"chat":{"id":-1001234567890,"type":"supergroup"},"text":"/start ABC"}},
				{"update_id":42,"channel_post":{"message_id":2,"chat":{"id":-1009,"type":"channel"},"text":"/start DEF"}},
				{"update_id":43,"edited_message":{"message_id":3,"chat":{"id":5,"type":"private"},"text":"x"}}]}`)
		case "/bot" + botToken + "/getMe":
			getMe.Add(1)
			_, _ = io.WriteString(w, `{"ok":true,"result":{"id":1,"is_bot":true,"username":"formd_bot"}}`)
		default:
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = io.WriteString(w, `{"ok":false,"error_code":401,"description":"Unauthorized"}`)
		}
	}))
	defer api.Close()
	s := telegramSender(t, api.URL)
	ctx := context.Background()
	got, err := s.Updates(ctx, 41, 3*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	want := []application.TelegramUpdate{{ID: 41, ChatID: "-1001234567890", Text: "/start ABC"}, {ID: 42, ChatID: "-1009", Text: "/start DEF"}, {ID: 43}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("updates = %+v\nwant %+v", got, want)
	}
	for range 2 {
		if name, err := s.Username(ctx); err != nil || name != "formd_bot" {
			t.Fatalf("username = %q, %v", name, err)
		}
	}
	if getMe.Load() != 1 {
		t.Errorf("getMe called %d times, want once", getMe.Load())
	}

	// A refusal names the method and the reason, never the bot token.
	bad := telegramSender(t, api.URL+"/elsewhere")
	_, err = bad.Updates(ctx, 0, time.Second)
	if err == nil || !strings.Contains(err.Error(), "getUpdates answered 401") || strings.Contains(err.Error(), botToken) {
		t.Fatalf("err = %v", err)
	}
}
