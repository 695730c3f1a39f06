package postgres

import (
	"context"
	"errors"

	wsql "github.com/ThreeDotsLabs/watermill-sql/v4/pkg/sql"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
)

// PoisonedMessages implements application.PoisonedMessages: the
// poisoned_messages table, written in the transaction of the Watermill
// message being handled.
type PoisonedMessages struct{}

// NewPoisonedMessages builds the store.
func NewPoisonedMessages() *PoisonedMessages { return &PoisonedMessages{} }

// Record implements application.PoisonedMessages. It finds the transaction
// that acknowledges the message on ctx (watermill-sql puts it there), so the
// message is skipped if and only if its record commits.
func (PoisonedMessages) Record(ctx context.Context, p application.PoisonedMessage) error {
	tx, ok := wsql.TxFromContext(ctx)
	if !ok {
		return errors.New("recording a poisoned message needs the transaction of the message being handled")
	}
	_, err := tx.ExecContext(ctx, `
		INSERT INTO poisoned_messages (consumer_group, topic, message_uuid, payload, reason)
		VALUES ($1, $2, $3, coalesce($4, ''::bytea), $5)`,
		p.Group, p.Topic, p.MessageID, p.Payload, domain.Truncate(p.Reason, 2000))
	return err
}
