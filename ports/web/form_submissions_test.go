package web

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/submission"
)

func TestASubmissionIsSummedUpByItsTypedSubjectElseItsFirstFieldButTheAddressCutShort(t *testing.T) {
	fields := []submission.Field{{Name: "email", Value: "ada@example.com"}, {Name: "name", Value: ""},
		{Name: "message", Value: "  Hello\n\nthere  "}}
	typed := append([]submission.Field{{Name: "botcheck", Value: "x"}}, fields...)
	if got := summaryOf(application.ArchivedEntry{Subject: "Quote", Fields: append(typed, submission.Field{Name: "Subject", Value: "Quote"})}); got != "Quote" {
		t.Errorf("the subject typed first: %q", got)
	}
	if got := summaryOf(application.ArchivedEntry{Subject: "New submission: Contact", Fields: typed}); got != "Hello there" {
		t.Errorf("first filled-in field other than the address, on one line: %q", got)
	}
	long := strings.Repeat("é", 100)
	got := summaryOf(application.ArchivedEntry{Fields: []submission.Field{{Name: "message", Value: long}}})
	if n := len([]rune(got)); n != summaryLength || !strings.HasSuffix(got, "…") {
		t.Errorf("cut to %d characters with an ellipsis, got %d: %q", summaryLength, n, got)
	}
	if got := summaryOf(application.ArchivedEntry{Fields: fields[:1]}); got != "" {
		t.Errorf("only an address: %q", got)
	}
}

func TestTheFiltersToDayIsIncludedSoTheAPIsBoundIsTheNextDay(t *testing.T) {
	f := submissionFilterOf(url.Values{"from": {"2026-11-01"}, "to": {"2026-11-30"}, "status": {"failed"},
		"email": {"a@example.com"}, "field": {"topic"}, "value": {"sales"}})
	api := f.apiQuery()
	if api.Get("to") != "2026-12-01" || api.Get("from") != "2026-11-01" || api.Get("value") != "sales" {
		t.Errorf("API query: %v", api)
	}
	link, err := url.Parse(exportLink("f1", f, "ndjson"))
	if err != nil || link.Path != "/v1/forms/f1/submissions/export" || link.Query().Get("format") != "ndjson" ||
		link.Query().Get("to") != "2026-12-01" || link.Query().Get("email") != "a@example.com" {
		t.Errorf("export link: %v", link)
	}
	if f.values().Get("to") != "2026-11-30" {
		t.Errorf("the tab's own query keeps the day typed: %v", f.values())
	}
	q, err := f.list()
	if err != nil {
		t.Fatal(err)
	}
	if !q.To.Equal(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)) || q.Status != "failed" || q.Field != "topic" {
		t.Errorf("list query: %+v", q)
	}
	if _, err := submissionFilterOf(url.Values{"to": {"soon"}}).list(); err == nil || !strings.Contains(err.Error(), "to") {
		t.Errorf("a to that is no date is refused naming it: %v", err)
	}
	if submissionFilterOf(url.Values{}).Active() || len(submissionFilterOf(url.Values{}).apiQuery()) != 0 {
		t.Error("no filter")
	}
}

func TestAnAccessIsToldInWordsWithoutTheHashesOfWhatWasSearched(t *testing.T) {
	three := 3
	list := application.SubmissionAccess{Action: application.AccessList, Count: &three, Filters: map[string]string{
		"from": "2026-11-01T00:00:00Z", "status": "delivered", "email": "0123456789abcdef0123456789abcdef",
		"field": "topic", "value": "fedcba9876543210fedcba9876543210", "cursor": "next page"}}
	if got := accessWhat(list); got != "Listed 3 submissions" {
		t.Errorf("list: %q", got)
	}
	words := filtersInWords(list.Filters)
	if words != "from 1 Nov 2026, 00:00 UTC, status delivered, submitter: an address, field topic: a value, a next page" {
		t.Errorf("filters: %q", words)
	}
	if strings.Contains(words, "0123") || strings.Contains(words, "fedc") {
		t.Errorf("a hash shown: %q", words)
	}
	export := application.SubmissionAccess{Action: application.AccessExport, Filters: map[string]string{"format": "csv"}}
	if got := accessWhat(export); got != "Export unfinished" {
		t.Errorf("unfinished export: %q", got)
	}
	one := 1
	export.Count = &one
	if got := accessWhat(export); got != "Exported 1 submission" {
		t.Errorf("export: %q", got)
	}
	if got := filtersInWords(export.Filters); got != "as CSV" {
		t.Errorf("format: %q", got)
	}
	file := application.SubmissionAccess{Action: application.AccessRead, SubmissionID: "s1", Filters: map[string]string{"attachment": "cv.pdf"}}
	rows := accessRowsOf("f1", []application.SubmissionAccess{file})
	if rows[0].What != "Downloaded a file of a submission" || rows[0].Filters != "" || rows[0].Submission != Prefix+"/forms/f1/submissions/s1" {
		t.Errorf("a file read, its name not shown: %+v", rows[0])
	}
}

func TestAnErasureByEmailSaysHowManyWentAndHowManyWait(t *testing.T) {
	for e, want := range map[application.Erasure]string{
		{Erased: 0}:             "Erased 0 submissions.",
		{Erased: 1}:             "Erased 1 submission.",
		{Erased: 3, Pending: 2}: "Erased 3 submissions (2 still being delivered: erase them again once their deliveries are final).",
	} {
		if got := erasedNotice(e); got != want {
			t.Errorf("%+v: %q, want %q", e, got, want)
		}
	}
}
