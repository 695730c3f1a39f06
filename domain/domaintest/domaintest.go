// Package domaintest holds assertions the domain packages' tests share.
package domaintest

import (
	"errors"
	"testing"

	"github.com/formd/formd/domain"
)

// InvalidField fails the test unless err is a *domain.InvalidInputError and
// returns the field it names.
func InvalidField(t testing.TB, err error) string {
	t.Helper()
	var inv *domain.InvalidInputError
	if !errors.As(err, &inv) {
		t.Fatalf("error = %v (%T), want *domain.InvalidInputError", err, err)
	}
	return inv.Field
}

// ExpectRefusal checks a refused constructor call: with wantField empty the
// error must be a plain one (a programming error, such as a missing id), else
// an InvalidInputError naming wantField.
func ExpectRefusal(t testing.TB, err error, wantField string) {
	t.Helper()
	if err == nil {
		t.Fatal("succeeded, want an error")
	}
	var inv *domain.InvalidInputError
	isInv := errors.As(err, &inv)
	switch {
	case wantField == "" && isInv:
		t.Errorf("error = %v, want a plain error", err)
	case wantField != "" && !isInv:
		t.Errorf("error = %v (%T), want *domain.InvalidInputError", err, err)
	case wantField != "" && inv.Field != wantField:
		t.Errorf("Field = %q, want %q", inv.Field, wantField)
	}
}
