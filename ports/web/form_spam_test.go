package web

import (
	"strings"
	"testing"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/submission"
)

func TestHeldRowShowsTheTypedSubjectAndAnExcerptOfTheMessage(t *testing.T) {
	long := strings.Repeat("buy cheap pills ", 20)
	row := heldRowOf(application.HeldEntry{SubmissionID: "s-1", SubmitterEmail: "ada@example.org", Subject: "New submission",
		Score: 15.04, Reasons: []string{"GTUBE"}, Fields: []submission.Field{{Name: "email", Value: "ada@example.org"},
			{Name: "Subject", Value: "Hello"}, {Name: "message", Value: "line one\n\n" + long}}})
	if row.Subject != "Hello" {
		t.Errorf("the subject the submitter typed, not the notification's: %q", row.Subject)
	}
	if row.Score != "15.0" {
		t.Errorf("score: %q", row.Score)
	}
	if !strings.HasPrefix(row.Excerpt, "line one buy cheap") || !strings.HasSuffix(row.Excerpt, "…") ||
		len([]rune(row.Excerpt)) > excerptLength {
		t.Errorf("the message on one line, cut: %q", row.Excerpt)
	}
	bare := heldRowOf(application.HeldEntry{Subject: "New submission"})
	if bare.Subject != "New submission" || bare.Score != "" || bare.Excerpt != "" {
		t.Errorf("without a typed subject the notification's; no score is none: %+v", bare)
	}
}

func TestReviewNoticeSaysWhetherTheFilterLearned(t *testing.T) {
	for _, c := range []struct {
		review application.Review
		want   string
	}{
		{application.Review{Verdict: form.ReviewedNotSpam, Learned: true}, "Released: its deliveries are queued; the spam filter learned"},
		{application.Review{Verdict: form.ReviewedNotSpam}, "Released: its deliveries are queued; the spam filter could not be taught."},
		{application.Review{Verdict: form.ReviewedSpam, Learned: true}, "Shredded as spam; the spam filter learned"},
		{application.Review{Verdict: form.ReviewedSpam}, "Shredded as spam; the spam filter could not be taught."},
		{application.Review{Verdict: form.ReviewedDeleted}, "Deleted"},
	} {
		if got := notices[reviewNotice(c.review)]; !strings.HasPrefix(got, c.want) {
			t.Errorf("%+v: got %q, want it to start %q", c.review, got, c.want)
		}
	}
}

func TestEveryFormHasASpamTabCountingWhatItHolds(t *testing.T) {
	for _, held := range []int{0, 3} {
		var spam *tab
		for _, tb := range formTabs("f-1", "Spam", false, held) {
			if tb.Label == "Spam" {
				spam = &tb
			}
		}
		if spam == nil || spam.Path != Prefix+"/forms/f-1/spam" || spam.Count != held || !spam.Current {
			t.Fatalf("held %d: %+v", held, spam)
		}
	}
}
