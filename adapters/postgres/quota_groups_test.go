package postgres

import (
	"slices"
	"testing"
	"time"
)

// A pipelined commit charges each account and month once, with the sum of
// its submissions, in the order of the quota rows' key: two commits lock
// the rows they share in the same order and never deadlock.
func TestQuotaChargesAreSummedPerAccountAndMonthInKeyOrder(t *testing.T) {
	nov := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	dec := nov.AddDate(0, 1, 0)
	q := quotaCharges{
		accounts: []string{"b", "a", "b", "a", "b"},
		months:   []time.Time{nov, dec, nov, nov, nov},
		wants:    []int32{1, 1, 1, 1, 1},
	}
	accounts, months, wants := q.perAccountMonth()
	if !slices.Equal(accounts, []string{"a", "a", "b"}) || !slices.Equal(wants, []int32{1, 1, 3}) ||
		!months[0].Equal(nov) || !months[1].Equal(dec) || !months[2].Equal(nov) {
		t.Fatalf("grouped %v %v %v; want a/Nov 1, a/Dec 1, b/Nov 3", accounts, months, wants)
	}
}
