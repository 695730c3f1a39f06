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

func TestThePrivateClustersCPUsAndSettingsNeedIt(t *testing.T) {
	for name, c := range map[string]struct {
		private  bool
		cpus     int
		settings string
		ok       bool
	}{
		"private, CPUs and settings": {private: true, cpus: 1, settings: "max_wal_size=8GB", ok: true},
		"neither":                    {ok: true},
		"CPUs without -private-pg":   {cpus: 1},
		"negative CPUs":              {private: true, cpus: -1},
		"settings without it":        {settings: "max_wal_size=8GB"},
		"a setting without a value":  {private: true, settings: "max_wal_size"},
	} {
		o := Options{PrivatePG: c.private, PrivatePGCPUs: c.cpus}
		err := setPrivatePG(&o, c.settings)
		if (err == nil) != c.ok {
			t.Errorf("%s: error %v; want one: %v", name, err, !c.ok)
		}
		if c.ok && c.settings != "" && !slices.Equal(o.PrivatePGSettings, []string{c.settings}) {
			t.Errorf("%s: settings %q; want %q", name, o.PrivatePGSettings, c.settings)
		}
	}
}
