package application_test

import (
	"testing"

	"github.com/formd/formd/application"
	"github.com/formd/formd/application/uowtest"
)

// The application tests' in-memory unit of work keeps the promises of the
// PostgreSQL one: the same suite runs against both.
func TestMemoryUnitOfWork(t *testing.T) {
	uowtest.Run(t, func(*testing.T) application.Transactor { return application.NewMemoryTransactor() })
}
