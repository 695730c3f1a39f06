package postgres

import (
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/formd/formd/domain/delivery"
)

// DeliveryStore implements application.DeliveryStore.
type DeliveryStore struct {
	pool  *pgxpool.Pool
	store *EventStore
	// instance names this process's claims; its heartbeat says it is alive.
	instance string
	// retention is how long a submission with a failed delivery keeps its
	// sealed payload (FORMD_FAILED_PAYLOAD_RETENTION).
	retention time.Duration
}

// NewDeliveryStore builds the store for one process, keeping the payloads of
// submissions with a failed delivery for delivery.DefaultFailedPayloadRetention.
func NewDeliveryStore(pool *pgxpool.Pool, store *EventStore) *DeliveryStore {
	return &DeliveryStore{pool: pool, store: store, instance: uuid.NewString(), retention: delivery.DefaultFailedPayloadRetention}
}

// WithFailedPayloadRetention sets how long a submission with a failed
// delivery keeps its sealed payload; 0 shreds it as soon as every delivery
// is final.
func (d *DeliveryStore) WithFailedPayloadRetention(r time.Duration) *DeliveryStore {
	d.retention = r
	return d
}

// byKeySettings are the planner settings of a statement that must read by
// key at any table size, set for the rest of its transaction: its plan is
// generic, made once per connection, and uses no sequential or bitmap scan
// whatever the statistics said when it was made. In a record's transaction
// what follows the settle (the redaction's deletes by key and its appends)
// reads nothing but by key either; a claim's holds nothing else.
const byKeySettings = `SELECT set_config('enable_seqscan', 'off', true), set_config('enable_bitmapscan', 'off', true),
	set_config('plan_cache_mode', 'force_generic_plan', true)`
