package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/formd/formd/adapters/postgres/pgtest"
)

func TestThePeerStoresEachSubmissionAndRefusesOneWithoutAKey(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dbURL, drop, err := pgtest.NewDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer drop()
	pool, err := connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	srv := httptest.NewServer(newRouter(pool))
	defer srv.Close()

	post := func(contentType, body string) (int, map[string]any) {
		t.Helper()
		resp, err := http.Post(srv.URL+"/submit", contentType, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var answer map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, answer
	}
	if code, answer := post("application/json", `{"access_key":"k1","name":"Ada","tags":["a","b"]}`); code != 200 || answer["success"] != true {
		t.Fatalf("JSON submission: %d %v", code, answer)
	}
	form := url.Values{"access_key": {"k2"}, "email": {"ada@example.com"}}
	if code, answer := post("application/x-www-form-urlencoded", form.Encode()); code != 200 || answer["success"] != true {
		t.Fatalf("form submission: %d %v", code, answer)
	}
	if code, answer := post("application/json", `{"name":"no key"}`); code != 400 || answer["success"] != false {
		t.Fatalf("submission without a key: %d %v", code, answer)
	}
	if code, _ := post("application/json", `{"access_key":`); code != 400 {
		t.Fatalf("broken JSON: %d", code)
	}

	rows, err := pool.Query(ctx, `SELECT access_key, data::text FROM naive_submissions ORDER BY access_key`)
	if err != nil {
		t.Fatal(err)
	}
	var stored []string
	for rows.Next() {
		var key, data string
		if err := rows.Scan(&key, &data); err != nil {
			t.Fatal(err)
		}
		stored = append(stored, key+" "+data)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	want := []string{`k1 {"name": "Ada", "tags": ["a", "b"]}`, `k2 {"email": "ada@example.com"}`}
	if strings.Join(stored, "\n") != strings.Join(want, "\n") {
		t.Fatalf("stored:\n%s\nwant:\n%s", strings.Join(stored, "\n"), strings.Join(want, "\n"))
	}
}
