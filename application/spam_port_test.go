package application

import (
	"slices"
	"testing"
)

func TestASpamVerdictBecomesTheGatesClassification(t *testing.T) {
	v := SpamVerdict{Score: 7.2, RequiredScore: 15, Action: SpamActionAddHeader, Spam: true, Symbols: []SpamSymbol{
		{Name: "BAYES_SPAM", Score: 5.1}, {Name: "RDNS_NONE", Score: 1}, {Name: "FROM_NO_DN", Score: 0}, {Name: "BAYES_HAM", Score: -3}}}
	c := v.Classification()
	if !c.Spam || c.Score != 7.2 || c.Unavailable || !slices.Equal(c.Reasons, []string{"BAYES_SPAM 5.1", "RDNS_NONE 1"}) {
		t.Fatalf("classification = %+v", c)
	}
	gtube := SpamVerdict{Score: 15, RequiredScore: 15, Action: SpamActionReject, Spam: true, Symbols: []SpamSymbol{{Name: "GTUBE"}}}
	if c := gtube.Classification(); !slices.Equal(c.Reasons, []string{"GTUBE"}) || !c.Spam {
		t.Fatalf("GTUBE: %+v", c)
	}
	if c := (SpamVerdict{Action: SpamActionNone, RequiredScore: 15}).Classification(); c.Spam || len(c.Reasons) != 0 {
		t.Fatalf("no action: %+v", c)
	}
}

func TestSpamActionsFromAddHeaderOnAreSpam(t *testing.T) {
	for action, spam := range map[string]bool{SpamActionNone: false, SpamActionGreylist: false, SpamActionAddHeader: true,
		SpamActionRewriteSubject: true, SpamActionSoftReject: true, SpamActionReject: true, "unknown": false} {
		if IsSpamAction(action) != spam {
			t.Errorf("IsSpamAction(%q) = %v", action, !spam)
		}
	}
}
