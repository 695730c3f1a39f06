package postgres

import (
	"context"

	"github.com/google/uuid"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/account"
)

// ActorNames implements application.ActorNameReader in one query for a page
// of the audit trail. A token's name and prefix come from its
// account.token_created event, not from workspace_tokens: revoking a token
// deletes its row, and the trail still names it. The event is found
// through its owner's stream, the events table's primary key.
func (r *ReadModel) ActorNames(ctx context.Context, q application.ActorNameQuery) (application.KnownActors, error) {
	known := application.KnownActors{Emails: map[string]string{}, Tokens: map[string]application.TokenName{}}
	accounts, owners := uuidsOf(q.AccountIDs), uuidsOf(q.OwnerIDs)
	if len(accounts) == 0 && (len(owners) == 0 || len(q.TokenIDs) == 0) {
		return known, nil
	}
	rows, err := r.pool.Query(ctx, `
		SELECT 'account', id::text, email, '' FROM accounts WHERE id = ANY($1::uuid[])
		UNION ALL
		SELECT 'token', data->>'tokenId', data->>'name', data->>'prefix' FROM events
		 WHERE stream_id = ANY($2::uuid[]) AND event_type = $3 AND data->>'tokenId' = ANY($4::text[])`,
		accounts, owners, account.TokenCreatedType, q.TokenIDs)
	if err != nil {
		return known, err
	}
	defer rows.Close()
	for rows.Next() {
		var kind, id, name, prefix string
		if err := rows.Scan(&kind, &id, &name, &prefix); err != nil {
			return known, err
		}
		if kind == "account" {
			known.Emails[id] = name
		} else {
			known.Tokens[id] = application.TokenName{Name: name, Prefix: prefix}
		}
	}
	return known, rows.Err()
}

// uuidsOf keeps the ids that are uuids: metadata written by hand (an
// operator's, a test's) may name something else, which no row matches and
// PostgreSQL would refuse to compare.
func uuidsOf(ids []string) []string {
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if uuid.Validate(id) == nil {
			out = append(out, id)
		}
	}
	return out
}
