package domain_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/formd/formd/domain"
)

func TestStream(t *testing.T) {
	var applied []string
	apply := func(e string) { applied = append(applied, e) }

	var s domain.Stream[string]
	if err := s.Load(apply, nil); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("Load(no events) = %v, want ErrNotFound", err)
	}
	if err := s.Load(apply, []string{"a", "b"}); err != nil {
		t.Fatal(err)
	}
	s.Record(apply, "c")
	s.Record(apply, "d")
	if !slices.Equal(applied, []string{"a", "b", "c", "d"}) {
		t.Errorf("applied %v, want history then changes in order", applied)
	}
	if s.Version() != 2 || !slices.Equal(s.Changes(), []string{"c", "d"}) {
		t.Errorf("Version() = %d, Changes() = %v; want 2 and the recorded events only", s.Version(), s.Changes())
	}
	var fresh domain.Stream[string]
	fresh.Record(apply, "created")
	if fresh.Version() != 0 || len(fresh.Changes()) != 1 {
		t.Errorf("a new aggregate: Version() = %d, Changes() = %v; want 0 and its creation", fresh.Version(), fresh.Changes())
	}
}
