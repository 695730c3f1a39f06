package rspamd_test

import (
	"context"
	"crypto/rand"
	"errors"
	"math/big"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/formd/formd/adapters/rspamd"
	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/submission"
)

// gtube is the GTUBE test string: every rspamd rejects a message with it.
const gtube = "XJS*C4JDBQADN1.NSBN3*2IDNEN*GTUBE-STANDARD-ANTI-UBE-TEST-EMAIL*C.34X"

// testRspamd is the test rspamd scripts/ensure-rspamd.sh starts (make unit
// and .ci/run call it and pass its variables). Without them the test is
// skipped, except on CI, where a skipped classifier test would pass a
// broken classifier.
func testRspamd(t *testing.T) rspamd.Config {
	t.Helper()
	c := rspamd.Config{URL: os.Getenv("FORMD_TEST_RSPAMD_URL"), ControllerURL: os.Getenv("FORMD_TEST_RSPAMD_CONTROLLER_URL"),
		Password: os.Getenv("FORMD_TEST_RSPAMD_PASSWORD")}
	if c.URL == "" || c.ControllerURL == "" {
		msg := "no test rspamd: run scripts/ensure-rspamd.sh and set the FORMD_TEST_RSPAMD_* variables it prints (make unit does)"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return c
}

func newClassifier(t *testing.T, c rspamd.Config) *rspamd.Classifier {
	t.Helper()
	cl, err := rspamd.New(c)
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

// message is a contact form's submission; 203.0.113.7 is a documentation
// address (no traffic goes there: rspamd only reads it).
func message(requestID, from, subject, text string) application.SpamMessage {
	return application.SpamMessage{FormID: "f_contact", RequestID: requestID, From: from, IP: "203.0.113.7", Subject: subject,
		Fields: []submission.Field{{Name: "name", Value: "Ada Lovelace"}, {Name: "email", Value: from}, {Name: "message", Value: text}}}
}

func symbolNames(v application.SpamVerdict) []string {
	var names []string
	for _, s := range v.Symbols {
		names = append(names, s.Name)
	}
	return names
}

func TestGTUBEIsSpam(t *testing.T) {
	cl := newClassifier(t, testRspamd(t))
	v, err := cl.Classify(context.Background(), message("req-gtube", "ada@example.org", "Hello", "Please read: "+gtube))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("verdict: %+v", v)
	if !v.Spam || v.Action != application.SpamActionReject || !slices.Contains(symbolNames(v), "GTUBE") {
		t.Fatalf("verdict = %+v, want spam, rejected, with the GTUBE symbol", v)
	}
}

func TestANormalMessageIsNotSpam(t *testing.T) {
	cl := newClassifier(t, testRspamd(t))
	for _, from := range []string{"ada@example.org", ""} {
		v, err := cl.Classify(context.Background(), message("req-normal", from, "Where is my order?",
			"Hello, I ordered a blue kettle last week and it has not arrived yet.\nCould you tell me when it will be shipped?\nThank you."))
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("from %q: %+v", from, v)
		if v.Spam || v.Action != application.SpamActionNone || v.Score >= v.RequiredScore || v.RequiredScore <= 0 {
			t.Fatalf("from %q: verdict = %+v, want no action and a score under the required one", from, v)
		}
	}
}

// vocabulary is n made-up words no earlier run used, so what Bayes learns
// here is all it knows of them, whatever Redis kept from earlier runs.
func vocabulary(t *testing.T, n int) []string {
	t.Helper()
	words := make([]string, n)
	for i := range words {
		var b strings.Builder
		for range 9 {
			k, err := rand.Int(rand.Reader, big.NewInt(26))
			if err != nil {
				t.Fatal(err)
			}
			b.WriteByte(byte('a' + k.Int64()))
		}
		words[i] = b.String()
	}
	return words
}

// text is a message of 60 words drawn from words, differing per seed.
func text(words []string, seed int) string {
	out := make([]string, 60)
	for i := range out {
		out[i] = words[(i*7+seed*13+i*i*seed)%len(words)]
	}
	return strings.Join(out, " ")
}

func hasSymbol(v application.SpamVerdict, name string) bool {
	return slices.Contains(symbolNames(v), name)
}

func TestLearningTeachesBayes(t *testing.T) {
	c := testRspamd(t)
	cl := newClassifier(t, c)
	ctx := context.Background()
	spamWords, hamWords := vocabulary(t, 30), vocabulary(t, 30)
	run := spamWords[0]

	// Before any learning, Bayes knows none of these words.
	before, err := cl.Classify(ctx, message(run+"-new-spam", "ada@example.org", "Offer", text(spamWords, 9)))
	if err != nil {
		t.Fatal(err)
	}
	if hasSymbol(before, "BAYES_SPAM") {
		t.Fatalf("before learning, the verdict has BAYES_SPAM: %+v", before)
	}

	// rspamd classifies only once each class has min_learns (2) messages.
	for i := range 3 {
		if err := cl.Learn(ctx, message(run+"-spam-"+string(rune('a'+i)), "ada@example.org", "Offer", text(spamWords, i)), true); err != nil {
			t.Fatalf("learnspam %d: %v", i, err)
		}
	}
	for i := range 2 {
		if err := cl.Learn(ctx, message(run+"-ham-"+string(rune('a'+i)), "ada@example.org", "Hello", text(hamWords, i)), false); err != nil {
			t.Fatalf("learnham %d: %v", i, err)
		}
	}

	t.Run("a similar new message gets BAYES_SPAM", func(t *testing.T) {
		v, err := cl.Classify(ctx, message(run+"-new-spam", "ada@example.org", "Offer", text(spamWords, 9)))
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("verdict: %+v", v)
		if !hasSymbol(v, "BAYES_SPAM") || hasSymbol(v, "BAYES_HAM") {
			t.Fatalf("verdict = %+v, want BAYES_SPAM", v)
		}
	})
	t.Run("a message like the ham gets BAYES_HAM", func(t *testing.T) {
		v, err := cl.Classify(ctx, message(run+"-new-ham", "ada@example.org", "Hello", text(hamWords, 9)))
		if err != nil {
			t.Fatal(err)
		}
		if !hasSymbol(v, "BAYES_HAM") || hasSymbol(v, "BAYES_SPAM") || v.Spam {
			t.Fatalf("verdict = %+v, want BAYES_HAM and not spam", v)
		}
	})
	t.Run("learning a message again is not an error", func(t *testing.T) {
		if err := cl.Learn(ctx, message(run+"-spam-a", "ada@example.org", "Offer", text(spamWords, 0)), true); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("a wrong password is an error", func(t *testing.T) {
		wrong := c
		wrong.Password = "not-the-password"
		err := newClassifier(t, wrong).Learn(ctx, message(run+"-other", "ada@example.org", "Offer", text(spamWords, 5)), true)
		if !errors.Is(err, rspamd.ErrUnavailable) {
			t.Fatalf("err = %v, want ErrUnavailable", err)
		}
		if strings.Contains(err.Error(), "not-the-password") {
			t.Fatalf("the error shows the password: %v", err)
		}
		t.Logf("wrong password: %v", err)
	})
	t.Run("without a controller, learning is an error", func(t *testing.T) {
		err := newClassifier(t, rspamd.Config{URL: c.URL}).Learn(ctx, message(run+"-other", "", "Offer", "x"), true)
		if !errors.Is(err, rspamd.ErrUnavailable) {
			t.Fatalf("err = %v, want ErrUnavailable", err)
		}
	})
}

func TestAnUnreachableRspamdIsAnErrorQuickly(t *testing.T) {
	addr := closedPort(t)
	cl := newClassifier(t, rspamd.Config{URL: "http://" + addr, ControllerURL: "http://" + addr, Timeout: time.Second})
	start := time.Now()
	v, err := cl.Classify(context.Background(), message("req-down", "ada@example.org", "Hello", "Hello"))
	if !errors.Is(err, rspamd.ErrUnavailable) {
		t.Fatalf("verdict %+v, err %v; want ErrUnavailable", v, err)
	}
	if err := cl.Learn(context.Background(), message("req-down", "", "Hello", "Hello"), false); !errors.Is(err, rspamd.ErrUnavailable) {
		t.Fatalf("learn: err %v; want ErrUnavailable", err)
	}
	if elapsed := time.Since(start); elapsed > 2*time.Second {
		t.Fatalf("took %s, want within the timeout", elapsed)
	}
	t.Logf("down: %v", err)
}
