package web

import (
	"encoding/json"
	"testing"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/form"
)

// The timeline leads with who acted by name and adds the kind of actor only
// where the name does not say it; an entry nobody named falls back to the
// kind.
func TestTimelineNamesActors(t *testing.T) {
	entry := func(actorType, id, name string) application.HistoryEntry {
		return application.HistoryEntry{Type: "form.settings_changed.v1",
			Metadata: application.Metadata{Actor: application.Actor{Type: actorType, ID: id}}, ActorName: name}
	}
	got := timelineOf([]application.HistoryEntry{
		entry(application.ActorSystem, "delivery", "formd"),
		entry(application.ActorToken, "tok-1", "CI deploys (fdw_abcd…)"),
		entry(application.ActorSession, "3f2a", "ada@example.com"),
		entry(application.ActorLink, "ver-1", ""),
	})
	want := []struct{ actor, kind string }{
		{"Verification link", ""}, {"ada@example.com", "Signed-in user"}, {"CI deploys (fdw_abcd…)", "API token"}, {"formd", ""},
	}
	for i, w := range want {
		if got[i].Actor != w.actor || got[i].ActorKind != w.kind {
			t.Errorf("entry %d: by %q (%q), want %q (%q)", i, got[i].Actor, got[i].ActorKind, w.actor, w.kind)
		}
	}
}

// A restore is told as such, with the version it brought back and what it
// changed.
func TestTimelineTellsARestore(t *testing.T) {
	got := timelineOf([]application.HistoryEntry{{Type: form.SettingsRestoredType, Version: 4,
		Event: form.SettingsRestored{RestoredVersion: 2, Changes: []form.Change{{Field: "name", From: json.RawMessage(`"Support"`), To: json.RawMessage(`"Contact"`)}}}}})
	if len(got) != 1 || got[0].What != "Settings restored" || got[0].Restored != 2 || got[0].Version != 4 ||
		len(got[0].Changes) != 1 || got[0].Changes[0].To != "Contact" {
		t.Errorf("restore in the timeline = %+v", got)
	}
}
