package postgres

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/submission"
)

// A submission's autoresponder takes its address's hourly slot in the
// submission's commit, so a submission refused at commit holds no slot, and
// one whose slot another request holds commits without its autoresponder.

// takeSlots takes each slot ($1 form, $2 address hash, $3 request, $4
// time) that is free, older than the window ($5), or already the same
// request's (a retried commit), and returns the slots taken. Rows are taken
// in key order, so two commits never deadlock on them; each slot must be
// named once.
const takeSlots = `
	INSERT INTO autoresponder_sends AS s (form_id, address_hash, request_id, reserved_at)
	SELECT w.form_id, w.address_hash, w.request_id, w.reserved_at
	FROM unnest($1::uuid[], $2::text[], $3::text[], $4::timestamptz[]) AS w(form_id, address_hash, request_id, reserved_at)
	ORDER BY w.form_id, w.address_hash
	ON CONFLICT (form_id, address_hash) DO UPDATE SET request_id = excluded.request_id, reserved_at = excluded.reserved_at
	WHERE s.reserved_at <= excluded.reserved_at - $5::interval OR s.request_id = excluded.request_id
	RETURNING s.form_id::text, s.address_hash`

// takeAllSlots is the pipelined path's takeSlots, which commits the whole
// batch or nothing: a slot not taken raises (FD002), and the careful path
// then commits that submission without its autoresponder.
const takeAllSlots = `WITH taken AS (` + takeSlots + `)
	SELECT formd_refuse('FD002', 'an autoresponder slot is held')
	WHERE (SELECT count(*) FROM taken) < cardinality($1::uuid[])`

// errSharedSlot fails a pipelined commit in which two submissions want one
// slot: the careful path gives it to the first.
var errSharedSlot = errors.New("two submissions of the group commit want one autoresponder slot")

// slotClaims are the slots the live submissions of a group commit want,
// each named once; shared lists the submissions whose slot an earlier one
// of the batch wants.
type slotClaims struct {
	idx                        []int
	forms, addresses, requests []string
	at                         []time.Time
	shared                     []int
}

func slotClaimsOf(batch []*pendingSubmission, live []bool) slotClaims {
	var c slotClaims
	seen := map[[2]string]bool{}
	for i, p := range batch {
		slot := p.sub.Autoresponder
		if !live[i] || slot.AddressHash == "" {
			continue
		}
		k := [2]string{p.sub.FormID, slot.AddressHash}
		if seen[k] {
			c.shared = append(c.shared, i)
			continue
		}
		seen[k] = true
		c.idx = append(c.idx, i)
		c.forms, c.addresses = append(c.forms, p.sub.FormID), append(c.addresses, slot.AddressHash)
		c.requests, c.at = append(c.requests, p.sub.Accepted.RequestID), append(c.at, p.sub.Accepted.At)
	}
	return c
}

func (c slotClaims) args() []any {
	return []any{c.forms, c.addresses, c.requests, c.at, AutoresponderWindow.String()}
}

// queue adds the taking of every slot to a pipelined group commit.
func (c slotClaims) queue(b *pgx.Batch) error {
	if len(c.shared) > 0 {
		return errSharedSlot
	}
	if len(c.idx) > 0 {
		b.Queue(takeAllSlots, c.args()...)
	}
	return nil
}

// takeAutoresponderSlots takes the live submissions' slots in tx. A
// submission whose slot is held commits without its autoresponder: the
// delivery leaves its queued deliveries, its event and its stored response,
// and its answer says so.
func takeAutoresponderSlots(ctx context.Context, tx pgx.Tx, batch []*pendingSubmission, live []bool, results []acceptResult) error {
	c := slotClaimsOf(batch, live)
	held := slices.Clone(c.shared)
	if len(c.idx) > 0 {
		rows, err := tx.Query(ctx, takeSlots, c.args()...)
		if err != nil {
			return err
		}
		taken := map[[2]string]bool{}
		var form, address string
		if _, err := pgx.ForEachRow(rows, []any{&form, &address}, func() error {
			taken[[2]string{form, address}] = true
			return nil
		}); err != nil {
			return err
		}
		for n, i := range c.idx {
			if !taken[[2]string{c.forms[n], c.addresses[n]}] {
				held = append(held, i)
			}
		}
	}
	keys := keyRows{}
	for _, i := range held {
		batch[i].sub = withoutAutoresponder(batch[i].sub)
		results[i].autoresponderHeld = true
		if k := batch[i].sub.IdempotencyKey; k != "" {
			resp, err := encodeStoredResponse(batch[i].sub.Response.Response)
			if err != nil {
				return err
			}
			keys.forms, keys.keys, keys.responses = append(keys.forms, batch[i].sub.FormID), append(keys.keys, k), append(keys.responses, resp)
		}
	}
	if len(keys.keys) == 0 {
		return nil
	}
	// The keys were claimed with the response that named the autoresponder.
	_, err := tx.Exec(ctx, `UPDATE idempotency_keys k SET response = u.response
		FROM unnest($1::uuid[], $2::text[], $3::jsonb[]) AS u(form_id, key, response)
		WHERE k.form_id = u.form_id AND k.key = u.key`, keys.forms, keys.keys, keys.responses)
	return err
}

// withoutAutoresponder is sub without its autoresponder delivery, sharing
// none of sub's slices.
func withoutAutoresponder(sub application.AcceptedSubmission) application.AcceptedSubmission {
	id := sub.Autoresponder.DeliveryID
	sub.Queued = slices.DeleteFunc(slices.Clone(sub.Queued), func(q delivery.Queued) bool { return q.DeliveryID == id })
	sub.Accepted.Deliveries = slices.DeleteFunc(slices.Clone(sub.Accepted.Deliveries),
		func(r submission.DeliveryRef) bool { return r.ID == id })
	sub.Response.Response.AutoresponderDeliveryID = ""
	sub.Autoresponder = application.AutoresponderSlot{}
	return sub
}
