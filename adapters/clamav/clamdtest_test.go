package clamav_test

import (
	"testing"

	"github.com/formd/formd/adapters/clamav/clamdtest"
)

// eicar is the industry's harmless antivirus test file.
const eicar = clamdtest.EICAR

// streamMaxLength is the test clamd's StreamMaxLength, in bytes.
const streamMaxLength = 1 << 20

// startClamd runs a clamd for the test (clamdtest.Start) and stops it at
// cleanup; a missing clamd fails the test.
func startClamd(t *testing.T) *clamdtest.Clamd {
	t.Helper()
	c, err := clamdtest.Start(t.TempDir(), streamMaxLength)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	return c
}
