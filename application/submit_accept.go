package application

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/submission"
)

// accept seals what the decision's plan sends and commits the submission
// with its queued deliveries.
func (h *SubmitHandler) accept(ctx context.Context, s *submitting, rec FormRecord, d submission.Decision) (SubmitOutcome, error) {
	cmd, key, data, in := s.cmd, s.key, s.data, *s.in
	now := h.clock.Now()
	submissionID := h.ids.New()
	plan := d.Plan()
	resp, refs, queued, payload := h.planned(cmd, rec, plan, data, in, submissionID, now)
	var slot AutoresponderSlot
	_, held := plan.Held()
	if _, ok := plan.Autoresponder(); ok && !held {
		// The submitter picks where an autoresponder goes: one an hour per
		// address keeps a form from being a mail cannon.
		slot = AutoresponderSlot{AddressHash: h.hasher.HashValue(rec.ID, autoresponderToField, strings.ToLower(plan.SubmitterEmail())),
			DeliveryID: resp.AutoresponderDeliveryID}
	}
	plaintext, err := encodePayload(payload)
	if err != nil {
		return SubmitOutcome{}, err
	}
	sealed, err := h.sealer.Seal(submissionID, plaintext)
	if err != nil {
		return SubmitOutcome{}, err
	}
	hashes := valueHashesOfFields(h.hasher, rec.ID, data)
	redirect := d.Redirect()
	stored := StoredResponse{Response: resp, Redirect: redirect}
	if cmd.IdempotencyKey != "" { // only a keyed retry is ever compared
		stored.RequestHash = requestHash(key, cmd.Fields, cmd.Files...)
	}
	var archiveUntil, heldUntil time.Time
	if held {
		// Nothing is sent until the owner releases it; the answer is a live
		// one's all the same, so a sender learns nothing of the verdict.
		heldUntil, queued = rec.Settings.Spam.HeldUntil(now), nil
	} else {
		archiveUntil = rec.Settings.Archive.KeepUntil(now)
	}
	// The deliveries go to this process's workers from the commit when
	// they have room for all of them, with the lease a claim takes.
	handOff := len(queued) > 0 && h.handOff.Reserve(len(queued))
	var claimedUntil time.Time
	if handOff {
		claimedUntil = now.Add(DeliveryLease)
	}
	accepted, err := h.store.Accept(ctx, AcceptedSubmission{
		FormID: rec.ID, FormVersion: rec.Version, IdempotencyKey: cmd.IdempotencyKey,
		Metadata: Metadata{Actor: Actor{Type: ActorSubmitter, ID: submitterID(h.hasher, rec.ID, cmd.RemoteIP)}, AccountID: rec.AccountID, RequestID: cmd.RequestID},
		Accepted: submission.Accepted{
			SubmissionID: submissionID, FormID: rec.ID, FormVersion: rec.Version, RequestID: cmd.RequestID,
			FieldNames: fieldNames(data), ValueHashes: hashes, Deliveries: refs, SpamCheck: d.Verdict().SpamCheckResult(), Held: held, At: now,
		},
		Queued: queued, ClaimedUntil: claimedUntil, Payload: sealed, Response: stored,
		ArchiveUntil: archiveUntil, HeldUntil: heldUntil,
		Charge:  QuotaCharge{AccountID: rec.AccountID, Month: account.MonthOf(now), Quotas: h.quotas},
		Uploads: in.uploads, Autoresponder: slot,
	})
	if accepted.AutoresponderHeld {
		queued = slices.DeleteFunc(queued, func(q delivery.Queued) bool { return q.DeliveryID == slot.DeliveryID })
		resp.AutoresponderDeliveryID = ""
		if handOff {
			h.handOff.Release(1)
		}
	}
	if handOff {
		h.handOver(queued, sealed, &payload, err == nil && accepted.Prior == nil)
	}
	if err != nil {
		return SubmitOutcome{}, err
	}
	if accepted.Prior != nil {
		return replay(cmd, key, data, accepted.Prior)
	}
	resp.Body.Data = echo(data)
	return SubmitOutcome{Response: resp, Redirect: redirect}, nil
}

// handOver gives the delivery workers the deliveries that the commit wrote
// claimed for them, with the payload they would otherwise read with a
// claim; when nothing was committed (an error, a replayed key), it frees
// their reserved slots. A commit whose outcome is unknown (its connection
// failed at COMMIT) may have written them: they then wait for their lease.
func (h *SubmitHandler) handOver(queued []delivery.Queued, sealed SealedPayload, opened *Payload, committed bool) {
	if !committed {
		h.handOff.Release(len(queued))
		return
	}
	deadline := handOffDeadline(time.Now())
	due := make([]DueDelivery, len(queued))
	for i, q := range queued {
		due[i] = DueDelivery{ClaimedDelivery: ClaimedDelivery{Queued: q, Payload: &sealed, Opened: opened}, Deadline: deadline}
	}
	h.handOff.Hand(due...)
}

// planned gives each delivery of plan its id and builds what the
// submission's commit holds: the response, the delivery references and
// queued deliveries, and the payload to seal.
func (h *SubmitHandler) planned(cmd Submit, rec FormRecord, plan submission.Plan, data []submission.Field, in resolved,
	submissionID string, now time.Time) (SubmissionResponse, []submission.DeliveryRef, []delivery.Queued, Payload) {
	resp := newResponse(true, SuccessMessage, cmd.RequestID, nil)
	resp.Body.Data = nil

	refs := make([]submission.DeliveryRef, 0, 4)
	queued := make([]delivery.Queued, 0, 4)
	webhookURLs, integrations, destinations := map[string]string{}, map[string]form.IntegrationType{}, map[string]Destination{}
	for _, d := range plan.Deliveries() {
		id := h.ids.New()
		refs = append(refs, submission.DeliveryRef{ID: id, Kind: d.Kind, Target: d.Target, Note: d.Note})
		queued = append(queued, delivery.Queued{DeliveryID: id, SubmissionID: submissionID, FormID: rec.ID, Kind: d.Kind,
			Target: d.Target, At: now})
		switch d.Kind {
		case delivery.KindEmail:
			// The first notification is the spec's deliveryId; a routed
			// submission's further ones are listed with the others.
			if resp.DeliveryID == "" {
				resp.DeliveryID = id
			} else {
				resp.NotificationDeliveryIDs = append(resp.NotificationDeliveryIDs, id)
			}
			if d.Recipient != rec.Settings.RecipientEmail {
				destinations[id] = Destination{Email: d.Recipient}
			}
		case delivery.KindAutoresponder:
			resp.AutoresponderDeliveryID = id
		case delivery.KindWebhook:
			resp.WebhookDeliveryIDs = append(resp.WebhookDeliveryIDs, id)
			webhookURLs[id] = d.WebhookURL
		case delivery.KindSlack, delivery.KindDiscord:
			resp.NotificationDeliveryIDs = append(resp.NotificationDeliveryIDs, id)
			webhookURLs[id] = d.WebhookURL
		case delivery.KindTelegram, delivery.KindGoogleSheets:
			resp.NotificationDeliveryIDs = append(resp.NotificationDeliveryIDs, id)
			destinations[id] = Destination{ChatID: d.ChatID, SpreadsheetID: d.SpreadsheetID, SheetName: d.SheetName}
		}
		if d.Integration != "" {
			integrations[id] = d.Integration
		}
	}
	payload := payloadOf(plan, rec.Settings.Name, data)
	payload.RequestID, payload.WebhookURLs, payload.Integrations = cmd.RequestID, webhookURLs, integrations
	payload.SpamLink = rec.Settings.Spam.Shown() != form.SpamOff
	payload.Templates = rec.Settings.Templates
	if len(destinations) > 0 {
		payload.Destinations = destinations
	}
	if all := append(slices.Clip(cmd.Files), in.files...); len(all) > 0 {
		payload.Attachments = attachmentsOf(all, in.uploads)
	}
	return resp, refs, queued, payload
}

// acceptTest answers a test submission that every gate accepted: nothing
// is committed, queued, counted or sent; each planned delivery is rendered
// into the form's test inbox, and the answer is a live one's, marked test.
func (h *SubmitHandler) acceptTest(ctx context.Context, s *submitting, rec FormRecord, d submission.Decision) (SubmitOutcome, error) {
	now := h.clock.Now()
	submissionID := h.ids.New()
	// No autoresponder slot is taken: no mail goes out.
	resp, _, queued, payload := h.planned(s.cmd, rec, d.Plan(), s.data, *s.in, submissionID, now)
	if _, held := d.Plan().Held(); held {
		queued = nil // a live one would wait in the Spam folder: nothing would be sent
	}
	resp.Test = true
	resp.Body.Data = echo(s.data)
	if err := h.tests.record(ctx, rec.ID, submissionID, s.cmd.IdempotencyKey, resp, queued, payload); err != nil {
		return SubmitOutcome{}, err
	}
	return SubmitOutcome{Response: resp, Redirect: d.Redirect()}, nil
}

// payloadOf is the sealed content: the plan and the fields it carries.
func payloadOf(p submission.Plan, formName string, data []submission.Field) Payload {
	out := Payload{
		Fields: data, Recipient: p.Recipient(), FormName: formName, Subject: p.Subject(), FromName: p.FromName(),
		ReplyTo: p.ReplyTo(), CC: p.CC(), SubmitterEmail: p.SubmitterEmail(), Webhook: p.Webhook(),
	}
	if auto, ok := p.Autoresponder(); ok {
		out.Autoresponder = &AutoresponderMail{Subject: auto.Subject, Message: auto.Message, FromName: auto.FromName, ReplyTo: auto.ReplyTo}
	}
	if tag, ok := p.Spam(); ok {
		out.Spam = &SpamTag{Score: tag.Score, Reasons: tag.Reasons}
	}
	if held, ok := p.Held(); ok {
		out.Held = &SpamTag{Score: held.Score, Reasons: held.Reasons}
	}
	return out
}

// autoresponderToField names the autoresponder's address in its keyed hash.
const autoresponderToField = "\x00autoresponder-to"

// submitterIPField names the submitter's address in the keyed hash; field
// names cannot hold a NUL, so it never collides with a submitted field.
const submitterIPField = "\x00submitter-ip"

// submitterID is how events name an anonymous submitter: a keyed hash of its
// IP address, per form. Repeated posts from one address can be correlated
// (abuse), while the events, which are kept for ever, never hold the address.
func submitterID(hasher ValueHasher, formID, ip string) string {
	if ip == "" {
		return ""
	}
	return "ip_" + hasher.HashValue(formID, submitterIPField, ip)
}

// valueHashesOfFields is the keyed hash of each field's value, as
// submission.accepted records them (and an archived payload's search index).
func valueHashesOfFields(hasher ValueHasher, formID string, fields []submission.Field) map[string]string {
	out := make(map[string]string, len(fields))
	for _, f := range fields {
		out[f.Name] = hasher.HashValue(formID, f.Name, f.Value)
	}
	return out
}
