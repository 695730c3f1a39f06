package web

import (
	"testing"

	"github.com/formd/formd/application"
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
