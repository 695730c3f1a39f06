package postgres_test

import (
	"testing"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/adapters/postgres/pgtest"
	"github.com/formd/formd/application"
	"github.com/formd/formd/application/uowtest"
)

// The PostgreSQL unit of work passes the suite every application.Transactor
// must (the application tests' in-memory one included), each case on a
// fresh database.
func TestUnitOfWorkSuite(t *testing.T) {
	uowtest.Run(t, func(t *testing.T) application.Transactor {
		return postgres.NewTransactor(pgtest.Open(t), postgres.NewEventStore(), wallClock{})
	})
}
