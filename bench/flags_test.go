package main

import (
	"slices"
	"testing"
)

func TestServerSettingsAreNameValuePairs(t *testing.T) {
	got, err := parseServerSettings(" max_wal_size=8GB, wal_compression = lz4 ,")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"max_wal_size=8GB", "wal_compression=lz4"}; !slices.Equal(got, want) {
		t.Fatalf("settings %q; want %q", got, want)
	}
	if got, err := parseServerSettings(""); err != nil || len(got) != 0 {
		t.Fatalf("an empty list gave %q, %v; want none", got, err)
	}
	for _, bad := range []string{"max_wal_size", "=8GB", "max_wal_size=", "a=1,b"} {
		if _, err := parseServerSettings(bad); err == nil {
			t.Errorf("%q was taken; want an error", bad)
		}
	}
}
