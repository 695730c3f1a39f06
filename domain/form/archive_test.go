package form

import (
	"errors"
	"testing"
	"time"

	"github.com/formd/formd/domain"
)

func TestArchiveRetentionIsBoundedByThePlan(t *testing.T) {
	free, pro := Policy{MaxArchiveRetentionDays: 30}, Policy{MaxArchiveRetentionDays: 365}
	cases := []struct {
		name    string
		archive Archive
		policy  Policy
		field   string // "" when valid
	}{
		{"off", Archive{}, Policy{}, ""},
		{"off with a retention", Archive{RetentionDays: 7}, free, "archive.retentionDays"},
		{"on within the plan", Archive{Enabled: true, RetentionDays: 30}, free, ""},
		{"on beyond the plan", Archive{Enabled: true, RetentionDays: 31}, free, "archive.retentionDays"},
		{"on for a year on pro", Archive{Enabled: true, RetentionDays: 365}, pro, ""},
		{"beyond any plan", Archive{Enabled: true, RetentionDays: 366}, Policy{MaxArchiveRetentionDays: 1000}, "archive.retentionDays"},
		{"on without a retention", Archive{Enabled: true}, pro, "archive.retentionDays"},
		{"negative", Archive{Enabled: true, RetentionDays: -1}, pro, "archive.retentionDays"},
		{"no archive in the plan", Archive{Enabled: true, RetentionDays: 1}, Policy{}, "archive.enabled"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := Settings{Name: "Contact", RecipientEmail: "owner@example.com", Archive: c.archive}.Normalize()
			err := s.Validate(c.policy)
			if c.field == "" {
				if err != nil {
					t.Fatalf("want valid, got %v", err)
				}
				return
			}
			var inv *domain.InvalidInputError
			if !errors.As(err, &inv) || inv.Field != c.field {
				t.Fatalf("want an error on %s, got %v", c.field, err)
			}
		})
	}
}

func TestArchiveKeepsUntilTheEndOfRetention(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	if got := (Archive{}).KeepUntil(at); !got.IsZero() {
		t.Fatalf("off: want zero, got %v", got)
	}
	if got, want := (Archive{Enabled: true, RetentionDays: 30}).KeepUntil(at), at.AddDate(0, 0, 30); !got.Equal(want) {
		t.Fatalf("want %v, got %v", want, got)
	}
}

func TestAPlanDowngradeKeepsTheArchiveUntilItIsChanged(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	pro, free := Policy{MaxArchiveRetentionDays: 365}, Policy{MaxArchiveRetentionDays: 30}
	f, err := Create(NewForm{ID: "f", AccountID: "a", WorkspaceID: "w", AccessKeyHash: "h",
		Settings: Settings{Name: "Contact", RecipientEmail: "owner@example.com", Archive: Archive{Enabled: true, RetentionDays: 365}}}, pro, at)
	if err != nil {
		t.Fatal(err)
	}
	subject := "Hello"
	if err := f.ChangeSettings(Patch{SubjectDefault: &subject}, free, at); err != nil {
		t.Fatalf("another setting after a downgrade: %v", err)
	}
	if got := f.Settings().Archive; got.RetentionDays != 365 {
		t.Fatalf("the archive is kept as set, got %+v", got)
	}
	longer := Archive{Enabled: true, RetentionDays: 200}
	var inv *domain.InvalidInputError
	if err := f.ChangeSettings(Patch{Archive: &longer}, free, at); !errors.As(err, &inv) || inv.Field != "archive.retentionDays" {
		t.Fatalf("a change of the archive is bound by the plan, got %v", err)
	}
}
