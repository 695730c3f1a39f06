package account_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/domaintest"
)

func TestGrantFeature(t *testing.T) {
	tests := []struct {
		name      string
		already   []string
		feature   string
		wantField string // refused with an InvalidInputError naming it
		want      []account.Event
	}{
		{name: "a new grant is recorded", feature: account.FeatureCC,
			want: []account.Event{account.FeatureGranted{Feature: "cc_recipients", At: accountT0.UTC()}}},
		{name: "the name is trimmed", feature: "  per_submit_webhook ",
			want: []account.Event{account.FeatureGranted{Feature: "per_submit_webhook", At: accountT0.UTC()}}},
		{name: "a held feature changes nothing", already: []string{account.FeatureCC}, feature: account.FeatureCC},
		{name: "another feature beside a held one", already: []string{account.FeatureCC}, feature: account.FeatureWebhook,
			want: []account.Event{account.FeatureGranted{Feature: "per_submit_webhook", At: accountT0.UTC()}}},
		{name: "a blank feature", feature: "  ", wantField: "feature"},
		{name: "an overlong feature", feature: strings.Repeat("x", 101), wantField: "feature"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			history := []account.Event{account.Registered{AccountID: "acct-1", Email: "ada@example.com", WorkspaceID: "ws-1"}}
			for _, f := range tt.already {
				history = append(history, account.FeatureGranted{Feature: f})
			}
			a, err := account.FromHistory(history)
			if err != nil {
				t.Fatal(err)
			}
			err = a.GrantFeature(tt.feature, accountT0)
			if tt.wantField != "" {
				domaintest.ExpectRefusal(t, err, tt.wantField)
				if len(a.Changes()) != 0 {
					t.Errorf("a refused grant recorded %+v", a.Changes())
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(a.Changes(), tt.want) {
				t.Errorf("changes %+v, want %+v", a.Changes(), tt.want)
			}
			if !a.HasFeature(strings.TrimSpace(tt.feature)) {
				t.Errorf("HasFeature(%q) = false after the grant", tt.feature)
			}
			if a.Version() != len(history) {
				t.Errorf("Version() = %d, want %d", a.Version(), len(history))
			}
		})
	}
}

func TestFeatureGrantedTypeIsPinned(t *testing.T) {
	// The stored name of an event may never change: old events must keep their meaning.
	if got := (account.FeatureGranted{}).EventType(); got != "account.feature_granted.v1" {
		t.Fatalf("EventType() = %q", got)
	}
}
