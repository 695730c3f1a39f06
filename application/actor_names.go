package application

import "context"

// ActorNameReader finds what the audit trail calls the accounts and workspace
// tokens that acted, at read time: an account's email can change, and the
// trail shows the current one, so names are never stored in events.
type ActorNameReader interface {
	// ActorNames reads, in one lookup for a whole page of entries, the
	// current email of each account and the name and prefix of each
	// workspace token (a revoked token keeps the name it was created with).
	// Ids it does not know are absent from the answer.
	ActorNames(ctx context.Context, q ActorNameQuery) (KnownActors, error)
}

// ActorNameQuery is the accounts and tokens a page of the trail names.
type ActorNameQuery struct {
	AccountIDs []string
	// TokenIDs are workspace token ids; OwnerIDs are the accounts whose
	// streams recorded the tokens' creation.
	TokenIDs []string
	OwnerIDs []string
}

// KnownActors is what ActorNameReader found.
type KnownActors struct {
	// Emails maps an account id to its current email.
	Emails map[string]string
	// Tokens maps a workspace token id to its name and prefix.
	Tokens map[string]TokenName
}

// TokenName is what names a workspace token to a person: the name its owner
// gave it and the prefix that starts the token.
type TokenName struct {
	Name   string
	Prefix string
}

// nameActors sets every entry's ActorName with one read of the names it needs.
func nameActors(ctx context.Context, names ActorNameReader, entries []HistoryEntry) error {
	q := actorNameQueryOf(entries)
	var known KnownActors
	if len(q.AccountIDs) > 0 || len(q.TokenIDs) > 0 {
		var err error
		if known, err = names.ActorNames(ctx, q); err != nil {
			return err
		}
	}
	for i := range entries {
		entries[i].ActorName = ActorName(entries[i].Metadata, known)
	}
	return nil
}

// actorNameQueryOf collects, once each, the accounts and tokens entries name.
func actorNameQueryOf(entries []HistoryEntry) ActorNameQuery {
	var q ActorNameQuery
	seen := map[string]bool{}
	add := func(list *[]string, kind, id string) {
		if id == "" || seen[kind+id] {
			return
		}
		seen[kind+id] = true
		*list = append(*list, id)
	}
	for _, e := range entries {
		md := e.Metadata
		switch md.Actor.Type {
		case ActorSession, ActorAgent:
			add(&q.AccountIDs, "account", md.AccountID)
		case ActorToken:
			add(&q.TokenIDs, "token", md.Actor.ID)
			add(&q.OwnerIDs, "owner", md.AccountID)
		}
	}
	return q
}

// ActorName is how the audit trail shows who acted: an account by its
// current email, a token by its name and prefix, anyone else by what they
// are. An account or token no longer known is named by its kind alone.
func ActorName(md Metadata, known KnownActors) string {
	switch md.Actor.Type {
	case ActorSession:
		if email := known.Emails[md.AccountID]; email != "" {
			return email
		}
		return "a session"
	case ActorToken:
		if t, ok := known.Tokens[md.Actor.ID]; ok {
			return t.Name + " (" + t.Prefix + "…)"
		}
		return "a workspace token"
	case ActorAgent:
		if email := known.Emails[md.AccountID]; email != "" {
			return "agent for " + email
		}
		return "agent"
	case ActorLink:
		return "verification link"
	case ActorSystem:
		return "formd"
	case ActorOperator:
		return "operator"
	case ActorSubmitter:
		return "a submitter"
	case ActorAnonymous:
		return "anonymous"
	case ActorTelegram:
		return "Telegram"
	}
	return md.Actor.Type
}
