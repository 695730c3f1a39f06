package eventcodec

import (
	"encoding/json"
	"time"

	"github.com/formd/formd/domain/form"
)

func init() {
	Register(func(e form.Created) formCreatedV1 {
		return formCreatedV1{FormID: e.FormID, AccountID: e.AccountID, WorkspaceID: e.WorkspaceID,
			AccessKeyHash: e.AccessKeyHash, AccessKeyPrefix: e.AccessKeyPrefix, Settings: settingsToV1(e.Settings), At: e.At}
	}, func(s formCreatedV1) form.Created {
		return form.Created{FormID: s.FormID, AccountID: s.AccountID, WorkspaceID: s.WorkspaceID,
			AccessKeyHash: s.AccessKeyHash, AccessKeyPrefix: s.AccessKeyPrefix, Settings: settingsFromV1(s.Settings), At: s.At}
	})
	Register(func(e form.SettingsChanged) formSettingsChangedV1 {
		out := formSettingsChangedV1{Settings: settingsToV1(e.Settings), At: e.At, RecipientReset: e.RecipientReset}
		if e.Changes != nil {
			out.Changes = make([]changeV1, len(e.Changes))
		}
		for i, c := range e.Changes {
			out.Changes[i] = changeV1{Field: c.Field, From: c.From, To: c.To}
		}
		return out
	}, func(s formSettingsChangedV1) form.SettingsChanged {
		out := form.SettingsChanged{Settings: settingsFromV1(s.Settings), At: s.At, RecipientReset: s.RecipientReset}
		if s.Changes != nil {
			out.Changes = make([]form.Change, len(s.Changes))
		}
		for i, c := range s.Changes {
			out.Changes[i] = form.Change{Field: c.Field, From: c.From, To: c.To}
		}
		return out
	})
	Register(func(e form.RecipientVerified) formRecipientVerifiedV1 {
		return formRecipientVerifiedV1{RecipientEmail: e.RecipientEmail, At: e.At}
	}, func(s formRecipientVerifiedV1) form.RecipientVerified {
		return form.RecipientVerified{RecipientEmail: s.RecipientEmail, At: s.At}
	})
}

// formCreatedV1 is form.created.v1 as stored.
type formCreatedV1 struct {
	FormID          string     `json:"formId"`
	AccountID       string     `json:"accountId"`
	WorkspaceID     string     `json:"workspaceId"`
	AccessKeyHash   string     `json:"accessKeyHash"`
	AccessKeyPrefix string     `json:"accessKeyPrefix"`
	Settings        settingsV1 `json:"settings"`
	At              time.Time  `json:"at"`
}

// changeV1 is one setting's JSON before and after, as the audit trail shows it.
type changeV1 struct {
	Field string          `json:"field"`
	From  json.RawMessage `json:"from"`
	To    json.RawMessage `json:"to"`
}

// formSettingsChangedV1 is form.settings_changed.v1 as stored.
type formSettingsChangedV1 struct {
	Changes        []changeV1 `json:"changes"`
	Settings       settingsV1 `json:"settings"`
	At             time.Time  `json:"at"`
	RecipientReset bool       `json:"recipientReset,omitempty"`
}

// formRecipientVerifiedV1 is form.recipient_verified.v1 as stored.
type formRecipientVerifiedV1 struct {
	RecipientEmail string    `json:"recipientEmail"`
	At             time.Time `json:"at"`
}

// formSubmissionsErasedV1 is form.submissions_erased.v1 as stored: a count
// and how the submissions were chosen, never a submitted value.
type formSubmissionsErasedV1 struct {
	Count        int       `json:"count"`
	By           string    `json:"by"`
	SubmissionID string    `json:"submissionId,omitempty"`
	EmailHash    string    `json:"emailHash,omitempty"`
	At           time.Time `json:"at"`
}

func init() {
	Register(func(e form.SubmissionsErased) formSubmissionsErasedV1 {
		return formSubmissionsErasedV1{Count: e.Count, By: e.By, SubmissionID: e.SubmissionID, EmailHash: e.EmailHash, At: e.At}
	}, func(s formSubmissionsErasedV1) form.SubmissionsErased {
		return form.SubmissionsErased{Count: s.Count, By: s.By, SubmissionID: s.SubmissionID, EmailHash: s.EmailHash, At: s.At}
	})
}

// formSpamReviewedV1 is form.spam_reviewed.v1 as stored: which submission
// the owner judged and how, never a submitted value.
type formSpamReviewedV1 struct {
	SubmissionID string    `json:"submissionId"`
	Verdict      string    `json:"verdict"`
	Learned      bool      `json:"learned"`
	At           time.Time `json:"at"`
}

func init() {
	Register(func(e form.SpamReviewed) formSpamReviewedV1 {
		return formSpamReviewedV1{SubmissionID: e.SubmissionID, Verdict: e.Verdict, Learned: e.Learned, At: e.At}
	}, func(s formSpamReviewedV1) form.SpamReviewed {
		return form.SpamReviewed{SubmissionID: s.SubmissionID, Verdict: s.Verdict, Learned: s.Learned, At: s.At}
	})
}

// formSettingsRestoredV1 is form.settings_restored.v1 as stored: a settings
// change that names the version whose settings it brought back.
type formSettingsRestoredV1 struct {
	RestoredVersion int        `json:"restoredVersion"`
	Changes         []changeV1 `json:"changes"`
	Settings        settingsV1 `json:"settings"`
	At              time.Time  `json:"at"`
	RecipientReset  bool       `json:"recipientReset,omitempty"`
}

func init() {
	Register(func(e form.SettingsRestored) formSettingsRestoredV1 {
		return formSettingsRestoredV1{RestoredVersion: e.RestoredVersion, Changes: changesToV1(e.Changes),
			Settings: settingsToV1(e.Settings), At: e.At, RecipientReset: e.RecipientReset}
	}, func(s formSettingsRestoredV1) form.SettingsRestored {
		return form.SettingsRestored{RestoredVersion: s.RestoredVersion, Changes: changesFromV1(s.Changes),
			Settings: settingsFromV1(s.Settings), At: s.At, RecipientReset: s.RecipientReset}
	})
}

// changesToV1 keeps a list of changes as stored: none stays null, as in
// the events written before.
func changesToV1(changes []form.Change) []changeV1 {
	if changes == nil {
		return nil
	}
	out := make([]changeV1, len(changes))
	for i, c := range changes {
		out[i] = changeV1(c)
	}
	return out
}

// changesFromV1 is changesToV1 the other way.
func changesFromV1(changes []changeV1) []form.Change {
	if changes == nil {
		return nil
	}
	out := make([]form.Change, len(changes))
	for i, c := range changes {
		out[i] = form.Change(c)
	}
	return out
}

// formRouteRecipientVerifiedV1 is form.route_recipient_verified.v1 as stored.
type formRouteRecipientVerifiedV1 struct {
	RecipientEmail string    `json:"recipientEmail"`
	At             time.Time `json:"at"`
}

func init() {
	Register(func(e form.RouteRecipientVerified) formRouteRecipientVerifiedV1 {
		return formRouteRecipientVerifiedV1(e)
	}, func(s formRouteRecipientVerifiedV1) form.RouteRecipientVerified {
		return form.RouteRecipientVerified(s)
	})
}
