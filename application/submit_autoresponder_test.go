package application

import (
	"context"
	"testing"

	"github.com/formd/formd/adapters/i18n"
	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/form"
)

// heldSlotStore commits every submission and reports its autoresponder's
// slot held by another request.
type heldSlotStore struct{ fakeStore }

func (s *heldSlotStore) Accept(ctx context.Context, a AcceptedSubmission) (Acceptance, error) {
	if _, err := s.fakeStore.Accept(ctx, a); err != nil {
		return Acceptance{}, err
	}
	return Acceptance{AutoresponderHeld: a.Autoresponder.DeliveryID != ""}, nil
}

func autoresponderForm() FormRecord {
	f := liveForm(1)
	f.Settings.Autoresponder = form.Autoresponder{Enabled: true, Subject: "Thanks", Message: "We got it"}
	return f
}

// The commit takes the autoresponder's slot: the submission names it, and
// when the commit reports it held, the answer names no autoresponder and
// the workers are handed none.
func TestAnAutoresponderWhoseSlotIsHeldIsNeitherAnsweredNorHandedOff(t *testing.T) {
	handOff := &slots{free: 4}
	store := &heldSlotStore{}
	h := handingOffSubmitHandler(&fakeForms{cached: autoresponderForm(), fresh: autoresponderForm()}, store, handOff, uncounted{})
	out, err := h.Handle(context.Background(), post("https://example.com"))
	if err != nil {
		t.Fatal(err)
	}
	if len(store.accepted) != 1 {
		t.Fatalf("committed %d submissions, want 1", len(store.accepted))
	}
	slot := store.accepted[0].Autoresponder
	if slot.AddressHash == "" || slot.DeliveryID == "" {
		t.Fatalf("the commit was given no autoresponder slot: %+v", slot)
	}
	if out.Response.AutoresponderDeliveryID != "" || out.Response.DeliveryID == "" {
		t.Fatalf("response %+v; want the email delivery and no autoresponder", out.Response)
	}
	var handed []string
	for _, d := range handOff.handed {
		handed = append(handed, d.Kind)
	}
	if len(handed) != 1 || handed[0] != delivery.KindEmail {
		t.Fatalf("handed %v to the workers, want the email alone", handed)
	}
	if free := handOff.free; free != 3 {
		t.Fatalf("%d slots free, want 3: the held autoresponder's slot is given back", free)
	}
}

// formd's default autoresponder is worded at acceptance in the form's
// language, else the submitter's Accept-Language; the form's own words win.
func TestTheDefaultAutoresponderIsInTheFormsElseTheSubmittersLanguage(t *testing.T) {
	catalogs, err := i18n.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, formLanguage, accept, ownSubject string
		wantSubject                            string
	}{
		{"the submitter's language", "", "de-DE,de;q=0.9", "", "Wir haben Ihre Nachricht erhalten"},
		{"the form's language wins", "fr", "de", "", "Nous avons bien reçu votre message"},
		{"no preference: English", "", "", "", "We received your message"},
		{"the form's own subject", "", "de", "Merci", "Merci"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := liveForm(1)
			f.Settings.Language = tc.formLanguage
			f.Settings.Autoresponder = form.Autoresponder{Enabled: true, Subject: tc.ownSubject}
			store := &fakeStore{}
			h := NewSubmitHandler(&fakeForms{cached: f, fresh: f}, store, noEntitlements{}, freePlan{}, plainSealer{}, lenHasher{}, &seqIDs{}, fixedClock{},
				noFloods{}, testQuotas, NopMetrics{}, noCaptchas(), noSpamChecks(), noUploads(), newMemoryTestInbox(), noHandOff(), uncounted{}, catalogs)
			cmd := post("https://example.com")
			cmd.AcceptLanguage = tc.accept
			out, err := h.Handle(context.Background(), cmd)
			if err != nil || out.FormID != f.ID {
				t.Fatalf("%v; outcome of form %q", err, out.FormID)
			}
			p, err := decodePayload(store.accepted[0].Payload.Ciphertext)
			if err != nil || p.Autoresponder == nil {
				t.Fatalf("payload %+v, %v", p, err)
			}
			if p.Autoresponder.Subject != tc.wantSubject {
				t.Errorf("subject %q, want %q", p.Autoresponder.Subject, tc.wantSubject)
			}
		})
	}
}
