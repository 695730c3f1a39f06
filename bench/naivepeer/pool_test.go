package main

import (
	"testing"

	"github.com/formd/formd/adapters/postgres"
)

// The peer holds as many connections as formd does by default, so neither
// side wins by holding more; the copy must follow formd's constant.
func TestThePeerPoolIsSizedAsFormdsDefault(t *testing.T) {
	if maxConns != postgres.DefaultMaxConns {
		t.Fatalf("naivepeer maxConns = %d, formd's postgres.DefaultMaxConns = %d", maxConns, postgres.DefaultMaxConns)
	}
}
