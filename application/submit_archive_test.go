package application

import (
	"context"
	"testing"

	"github.com/formd/formd/domain/form"
)

// A submission carries the archive of the form version that judged it: its
// payload is kept until retentionDays after it was accepted, or shredded at
// its final delivery when the form archives nothing.
func TestASubmissionIsArchivedAsTheFormThatJudgedItSays(t *testing.T) {
	for _, archive := range []form.Archive{{}, {Enabled: true, RetentionDays: 30}} {
		f := liveForm(1, "example.com")
		f.Settings.Archive = archive
		store := &fakeStore{}
		if _, err := newTestSubmitHandler(&fakeForms{cached: f, fresh: f}, store).Handle(context.Background(), post("https://example.com")); err != nil {
			t.Fatal(err)
		}
		if len(store.accepted) != 1 {
			t.Fatalf("accepted %d", len(store.accepted))
		}
		got := store.accepted[0]
		if want := archive.KeepUntil(got.Accepted.At); !got.ArchiveUntil.Equal(want) {
			t.Errorf("archive %+v: kept until %v, want %v", archive, got.ArchiveUntil, want)
		}
		if archive.Enabled && got.ArchiveUntil.Sub(got.Accepted.At).Hours() != 30*24 {
			t.Errorf("archive %+v: kept %v after acceptance", archive, got.ArchiveUntil.Sub(got.Accepted.At))
		}
	}
}
