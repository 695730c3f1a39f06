package postgres

import (
	"fmt"

	wsql "github.com/ThreeDotsLabs/watermill-sql/v4/pkg/sql"
)

// outboxSchema is watermill-sql's PostgreSQL schema with a consumer query
// that stays an index range scan however many messages wait. The library's
// query asks for (transaction_id = X AND offset > Y) OR transaction_id > X:
// the planner answers that OR with a bitmap scan of every waiting message
// and a sort, so a backlog makes each poll slower, just when polls must be
// fast. The same condition written as a row comparison,
// (transaction_id, offset) > (X, Y), is an index condition on the primary
// key, whose order the ORDER BY follows, so the scan stops at the batch size.
type outboxSchema struct {
	wsql.DefaultPostgreSQLSchema
}

// SelectQuery implements wsql.SchemaAdapter: the library's query, with the
// position as a row comparison.
func (s outboxSchema) SelectQuery(params wsql.SelectQueryParams) (wsql.Query, error) {
	next, err := params.OffsetsAdapter.NextOffsetQuery(wsql.NextOffsetQueryParams{Topic: params.Topic, ConsumerGroup: params.ConsumerGroup})
	if err != nil {
		return wsql.Query{}, err
	}
	batch := s.SubscribeBatchSize
	if batch == 0 {
		batch = 100
	}
	return wsql.Query{Query: `
		WITH last_processed AS (` + next.Query + `)
		SELECT "offset", transaction_id, uuid, payload, metadata FROM ` + s.MessagesTable(params.Topic) + `
		WHERE (transaction_id, "offset") > ((SELECT last_processed_transaction_id FROM last_processed), (SELECT offset_acked FROM last_processed))
		  AND transaction_id < pg_snapshot_xmin(pg_current_snapshot())
		ORDER BY transaction_id ASC, "offset" ASC
		LIMIT ` + fmt.Sprint(batch), Args: next.Args}, nil
}
