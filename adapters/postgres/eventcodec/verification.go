package eventcodec

import (
	"time"

	"github.com/formd/formd/domain/verification"
)

func init() {
	Register(func(e verification.Requested) verificationRequestedV1 {
		return verificationRequestedV1{VerificationID: e.VerificationID, Kind: string(e.Kind), SubjectID: e.SubjectID,
			AccountID: e.AccountID, Email: e.Email, TokenHash: e.TokenHash, DeliveryID: e.DeliveryID, ExpiresAt: e.ExpiresAt, At: e.At, Language: e.Language}
	}, func(s verificationRequestedV1) verification.Requested {
		return verification.Requested{VerificationID: s.VerificationID, Kind: verification.Kind(s.Kind), SubjectID: s.SubjectID,
			AccountID: s.AccountID, Email: s.Email, TokenHash: s.TokenHash, DeliveryID: s.DeliveryID, ExpiresAt: s.ExpiresAt, At: s.At, Language: s.Language}
	})
	Register(func(e verification.Completed) atV1 { return atV1{At: e.At} },
		func(s atV1) verification.Completed { return verification.Completed{At: s.At} })
}

// verificationRequestedV1 is verification.requested.v1 as stored.
type verificationRequestedV1 struct {
	VerificationID string    `json:"verificationId"`
	Kind           string    `json:"kind"`
	SubjectID      string    `json:"subjectId"`
	AccountID      string    `json:"accountId"`
	Email          string    `json:"email"`
	TokenHash      string    `json:"tokenHash"`
	DeliveryID     string    `json:"deliveryId"`
	ExpiresAt      time.Time `json:"expiresAt"`
	At             time.Time `json:"at"`
	Language       string    `json:"language,omitempty"`
}
