package application

import (
	"context"
	"slices"
	"testing"
)

// noActorNames knows no account and no token.
type noActorNames struct{}

func (noActorNames) ActorNames(context.Context, ActorNameQuery) (KnownActors, error) {
	return KnownActors{}, nil
}

// actorBook answers from its maps and counts how often it is asked.
type actorBook struct {
	known   KnownActors
	queries []ActorNameQuery
}

func (b *actorBook) ActorNames(_ context.Context, q ActorNameQuery) (KnownActors, error) {
	b.queries = append(b.queries, q)
	return b.known, nil
}

func TestActorNameNamesEveryActorType(t *testing.T) {
	known := KnownActors{
		Emails: map[string]string{"acct-1": "ada@example.com"},
		Tokens: map[string]TokenName{"tok-1": {Name: "CI deploys", Prefix: "fdw_abcd"}},
	}
	cases := []struct {
		md   Metadata
		want string
	}{
		{Metadata{Actor: Actor{Type: ActorSession, ID: "a1b2c3"}, AccountID: "acct-1"}, "ada@example.com"},
		{Metadata{Actor: Actor{Type: ActorSession, ID: "a1b2c3"}, AccountID: "acct-gone"}, "a session"},
		{Metadata{Actor: Actor{Type: ActorToken, ID: "tok-1"}, AccountID: "acct-1"}, "CI deploys (fdw_abcd…)"},
		{Metadata{Actor: Actor{Type: ActorToken, ID: "tok-gone"}, AccountID: "acct-1"}, "a workspace token"},
		{Metadata{Actor: Actor{Type: ActorAgent, ID: "d4e5f6"}, AccountID: "acct-1"}, "agent for ada@example.com"},
		{Metadata{Actor: Actor{Type: ActorAgent, ID: "d4e5f6"}}, "agent"},
		{Metadata{Actor: Actor{Type: ActorLink, ID: "ver-1"}}, "verification link"},
		{Metadata{Actor: Actor{Type: ActorSystem, ID: "delivery"}}, "formd"},
		{Metadata{Actor: Actor{Type: ActorOperator, ID: "root"}, AccountID: "acct-1"}, "operator"},
		{Metadata{Actor: Actor{Type: ActorSubmitter, ID: "0badc0ffee"}}, "a submitter"},
		{Metadata{Actor: Actor{Type: ActorAnonymous}}, "anonymous"},
		{Metadata{Actor: Actor{Type: ActorTelegram, ID: "chat:42"}}, "Telegram"},
		{Metadata{Actor: Actor{Type: "spam_link", ID: "x"}}, "spam_link"},
	}
	for _, c := range cases {
		if got := ActorName(c.md, known); got != c.want {
			t.Errorf("%s %s of %q: %q, want %q", c.md.Actor.Type, c.md.Actor.ID, c.md.AccountID, got, c.want)
		}
	}
}

// A page of the trail is named with one lookup that asks for each account
// and token once, and none for a page that names nobody it could look up.
func TestNameActorsLooksUpAPageOnce(t *testing.T) {
	book := &actorBook{known: KnownActors{
		Emails: map[string]string{"acct-1": "ada@example.com"},
		Tokens: map[string]TokenName{"tok-1": {Name: "CI", Prefix: "fdw_abcd"}},
	}}
	entries := []HistoryEntry{
		{Metadata: Metadata{Actor: Actor{Type: ActorAgent, ID: "a"}, AccountID: "acct-1"}},
		{Metadata: Metadata{Actor: Actor{Type: ActorSession, ID: "b"}, AccountID: "acct-1"}},
		{Metadata: Metadata{Actor: Actor{Type: ActorToken, ID: "tok-1"}, AccountID: "acct-1"}},
		{Metadata: Metadata{Actor: Actor{Type: ActorToken, ID: "tok-1"}, AccountID: "acct-1"}},
		{Metadata: Metadata{Actor: Actor{Type: ActorSubmitter, ID: "c"}, AccountID: "acct-2"}},
	}
	if err := nameActors(context.Background(), book, entries); err != nil {
		t.Fatal(err)
	}
	if len(book.queries) != 1 {
		t.Fatalf("%d lookups for one page", len(book.queries))
	}
	q := book.queries[0]
	if !slices.Equal(q.AccountIDs, []string{"acct-1"}) || !slices.Equal(q.TokenIDs, []string{"tok-1"}) || !slices.Equal(q.OwnerIDs, []string{"acct-1"}) {
		t.Fatalf("asked for %+v", q)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.ActorName)
	}
	want := []string{"agent for ada@example.com", "ada@example.com", "CI (fdw_abcd…)", "CI (fdw_abcd…)", "a submitter"}
	if !slices.Equal(names, want) {
		t.Fatalf("names = %q, want %q", names, want)
	}

	book.queries = nil
	quiet := []HistoryEntry{{Metadata: Metadata{Actor: Actor{Type: ActorSystem, ID: "delivery"}}}}
	if err := nameActors(context.Background(), book, quiet); err != nil || len(book.queries) != 0 || quiet[0].ActorName != "formd" {
		t.Fatalf("a page naming only formd: %d lookups, %q, %v", len(book.queries), quiet[0].ActorName, err)
	}
}
