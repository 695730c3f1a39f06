package postgres_test

import (
	"slices"
	"testing"
	"time"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/application"
)

// archivedSubmission commits a submission of the form whose payload is
// archived, with the value hash of its email field.
func (g groupEnv) archivedSubmission(t *testing.T, emailHash string) string {
	t.Helper()
	s := g.accepted(g.version, "")
	s.Accepted.FormVersion = g.version
	s.Accepted.ValueHashes = map[string]string{"email": emailHash}
	s.ArchiveUntil = time.Now().Add(24 * time.Hour)
	g.accept(t, s)
	return s.Accepted.SubmissionID
}

func pageIDs(t *testing.T, a *postgres.SubmissionArchive, g groupEnv, f application.ArchiveFilter) []string {
	t.Helper()
	if f.Limit == 0 {
		f.Limit = 10
	}
	found, err := a.ArchivedPage(g.ctx, g.formID, f)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range found {
		ids = append(ids, s.SubmissionID)
	}
	return ids
}

func TestArchivedPageListsNewestFirstAndFiltersByValueHashStatusAndCursorWithoutOpeningAnything(t *testing.T) {
	g := newGroupEnv(t)
	a := postgres.NewSubmissionArchive(g.pool)
	first := g.archivedSubmission(t, "hash-a")
	second := g.archivedSubmission(t, "hash-b")
	third := g.archivedSubmission(t, "hash-a")
	g.accept(t, g.accepted(g.version, "")) // not archived: never listed

	if got := pageIDs(t, a, g, application.ArchiveFilter{}); !slices.Equal(got, []string{third, second, first}) {
		t.Fatalf("page = %v, want newest first %v", got, []string{third, second, first})
	}
	byHash := application.ArchiveFilter{Values: []application.ValueMatch{{Field: "email", Hashes: []string{"hash-a", "hash-under-an-old-key"}}}}
	if got := pageIDs(t, a, g, byHash); !slices.Equal(got, []string{third, first}) {
		t.Errorf("by value hash = %v, want %v", got, []string{third, first})
	}
	if got := pageIDs(t, a, g, application.ArchiveFilter{Values: []application.ValueMatch{{Field: "message", Hashes: []string{"hash-a"}}}}); got != nil {
		t.Errorf("another field's hash matched: %v", got)
	}
	// Each submission's notification is still queued.
	if got := pageIDs(t, a, g, application.ArchiveFilter{Status: application.ArchivedPending}); len(got) != 3 {
		t.Errorf("pending = %v, want all three", got)
	}
	if got := pageIDs(t, a, g, application.ArchiveFilter{Status: application.ArchivedDelivered}); got != nil {
		t.Errorf("delivered = %v, want none", got)
	}
	page, err := a.ArchivedPage(g.ctx, g.formID, application.ArchiveFilter{Limit: 1})
	if err != nil || len(page) != 1 {
		t.Fatalf("first page %v, %v", page, err)
	}
	if page[0].RequestID != "req-"+third || page[0].FormVersion != g.version || !slices.Equal(page[0].FieldNames, []string{"email"}) ||
		page[0].Status != application.ArchivedPending || len(page[0].Sealed.Ciphertext) == 0 {
		t.Errorf("first row = %+v", page[0])
	}
	after := &application.ArchiveCursor{At: page[0].AcceptedAt, ID: page[0].SubmissionID}
	if got := pageIDs(t, a, g, application.ArchiveFilter{After: after}); !slices.Equal(got, []string{second, first}) {
		t.Errorf("after the cursor = %v, want %v", got, []string{second, first})
	}
	to := application.ArchiveFilter{To: page[0].AcceptedAt}
	if got := pageIDs(t, a, g, to); !slices.Equal(got, []string{second, first}) {
		t.Errorf("before the newest = %v", got)
	}

	// Past its retention, a payload the sweep has not shredded yet is no
	// longer read.
	if _, err := g.pool.Exec(g.ctx, `UPDATE submission_payloads SET archived_until = now() - interval '1 second' WHERE submission_id = $1`, third); err != nil {
		t.Fatal(err)
	}
	if got := pageIDs(t, a, g, application.ArchiveFilter{}); !slices.Equal(got, []string{second, first}) {
		t.Errorf("after third's retention = %v", got)
	}
	if _, err := a.ArchivedSubmission(g.ctx, g.formID, third); err == nil {
		t.Error("a submission past its retention was read")
	}
}

func TestRekeyReHashesAnArchivedPayloadsSearchIndexUnderTheCurrentKey(t *testing.T) {
	e := newRekeyEnv(t)
	s := e.accepted(1, "")
	plain := `{"v":1,"fields":[{"name":"email","value":"ada@example.com"},{"name":"topic","value":"sales"}]}`
	s.Payload = e.sealer.sealUnder("old1", s.Accepted.SubmissionID, []byte(plain))
	s.Accepted.ValueHashes = map[string]string{"email": "old1-hash", "topic": "old1-hash"}
	s.ArchiveUntil = time.Now().Add(time.Hour)
	e.accept(t, s)
	unarchived := e.submit(t, "old1")

	if _, err := application.NewRekeyPayloadsHandler(e.records, e.sealer, e.sealer).Handle(e.ctx, application.RekeyPayloads{}); err != nil {
		t.Fatal(err)
	}
	a := postgres.NewSubmissionArchive(e.pool)
	found := pageIDs(t, a, e.groupEnv, application.ArchiveFilter{Values: []application.ValueMatch{
		{Field: "email", Hashes: []string{e.sealer.HashValue(e.formID, "email", "ada@example.com")}},
		{Field: "topic", Hashes: []string{e.sealer.HashValue(e.formID, "topic", "sales")}}}})
	if !slices.Equal(found, []string{s.Accepted.SubmissionID}) {
		t.Fatalf("found under the current key: %v", found)
	}
	var index *string
	if err := e.pool.QueryRow(e.ctx, `SELECT value_hashes::text FROM submission_payloads WHERE submission_id = $1`, unarchived).Scan(&index); err != nil || index != nil {
		t.Errorf("an unarchived payload got a search index: %v, %v", index, err)
	}
}

func TestAnExportPagesOldestFirstAndListsItsColumnsInTheOrderTheyFirstAppear(t *testing.T) {
	g := newGroupEnv(t)
	a := postgres.NewSubmissionArchive(g.pool)
	submit := func(hash string, names ...string) string {
		t.Helper()
		s := g.accepted(g.version, "")
		s.Accepted.FieldNames = names
		s.Accepted.ValueHashes = map[string]string{"email": hash}
		s.ArchiveUntil = time.Now().Add(time.Hour)
		g.accept(t, s)
		return s.Accepted.SubmissionID
	}
	first := submit("hash-a", "email", "message")
	second := submit("hash-b", "name", "email", "phone")
	third := submit("hash-a", "company", "message", "name")
	g.accept(t, g.accepted(g.version, "")) // not archived: no column of its own

	oldest := application.ArchiveFilter{OldestFirst: true}
	if got := pageIDs(t, a, g, oldest); !slices.Equal(got, []string{first, second, third}) {
		t.Fatalf("oldest first = %v, want %v", got, []string{first, second, third})
	}
	page, err := a.ArchivedPage(g.ctx, g.formID, application.ArchiveFilter{OldestFirst: true, Limit: 1})
	if err != nil || len(page) != 1 {
		t.Fatalf("first page %v, %v", page, err)
	}
	oldest.After = &application.ArchiveCursor{At: page[0].AcceptedAt, ID: page[0].SubmissionID}
	if got := pageIDs(t, a, g, oldest); !slices.Equal(got, []string{second, third}) {
		t.Errorf("after the cursor = %v, want %v", got, []string{second, third})
	}

	names := func(f application.ArchiveFilter) []string {
		t.Helper()
		got, err := a.ArchivedFieldNames(g.ctx, g.formID, f)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := names(application.ArchiveFilter{}); !slices.Equal(got, []string{"email", "message", "name", "phone", "company"}) {
		t.Errorf("columns = %v", got)
	}
	byHash := application.ArchiveFilter{Values: []application.ValueMatch{{Field: "email", Hashes: []string{"hash-a"}}}}
	if got := names(byHash); !slices.Equal(got, []string{"email", "message", "company", "name"}) {
		t.Errorf("columns of the filtered = %v", got)
	}
	if got := names(application.ArchiveFilter{From: page[0].AcceptedAt.Add(time.Microsecond)}); !slices.Equal(got, []string{"name", "email", "phone", "company", "message"}) {
		t.Errorf("columns from the second = %v", got)
	}
	if got := names(application.ArchiveFilter{Status: application.ArchivedFailed}); len(got) != 0 {
		t.Errorf("columns of nothing = %v", got)
	}
}
