package main

import (
	"strings"
	"testing"

	"github.com/formd/formd/application"
)

func TestTheRekeyReportCountsByKeyIDAndSaysWhatIsLeft(t *testing.T) {
	report := application.RekeyReport{CurrentKeyID: "5e0c47a1", Kinds: []application.RekeyedKind{
		{Kind: application.SealedSubmissionPayloads, Resealed: map[string]int{"9b2f10c4": 3, "": 1, "01d2e3f4": 2},
			CannotOpen: map[string]int{"deadbeef": 1}},
		{Kind: application.SealedWebhookSecrets, Resealed: map[string]int{}, Left: 2},
		{Kind: application.SealedCaptchaSecrets, Resealed: map[string]int{}},
	}}
	var out strings.Builder
	printRekeyReport(&out, report)
	want := `current key id 5e0c47a1
submission payloads: re-sealed no key id (sealed before key ids): 1, key id 01d2e3f4: 2, key id 9b2f10c4: 3; cannot open: key id deadbeef: 1
webhook signing secrets: 2 left under an old key (busy, or sealed meanwhile by a process still running with the old FORMD_SECRET_KEY): run again
captcha secrets: nothing under an old key
`
	if out.String() != want {
		t.Errorf("report:\n%s\nwant:\n%s", out.String(), want)
	}
	if report.Complete() {
		t.Error("a report with something left says it is complete")
	}

	done := application.RekeyReport{CurrentKeyID: "5e0c47a1", DryRun: true,
		Kinds: []application.RekeyedKind{{Kind: application.SealedTestSubmissions, Resealed: map[string]int{"9b2f10c4": 4}}}}
	out.Reset()
	printRekeyReport(&out, done)
	if !done.Complete() || !strings.Contains(out.String(), "test inbox entries: would re-seal key id 9b2f10c4: 4\ndry run: nothing was written\n") {
		t.Errorf("dry run report (complete %v):\n%s", done.Complete(), out.String())
	}
}
