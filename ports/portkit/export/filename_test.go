package export

import (
	"mime"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestExportFileNames(t *testing.T) {
	day := time.Date(2026, 11, 27, 23, 30, 0, 0, time.FixedZone("PST", -8*3600)) // already the 28th in UTC
	cases := []struct {
		form, format, want, wantUTF8 string
	}{
		{"Contact us", "csv", `attachment; filename="contact-us-2026-11-28.csv"`, ""},
		{"  Job applications (2027)!  ", "ndjson", `attachment; filename="job-applications-2027-2026-11-28.ndjson"`, ""},
		{"Köln Anfragen", "csv", `attachment; filename="k-ln-anfragen-2026-11-28.csv"`, "köln-anfragen-2026-11-28.csv"},
		{"お問い合わせ", "csv", `attachment; filename="submissions-2026-11-28.csv"`, "お問い合わせ-2026-11-28.csv"},
		{`../../etc/"passwd";\r\n`, "csv", `attachment; filename="etc-passwd-r-n-2026-11-28.csv"`, ""},
		{"", "csv", `attachment; filename="submissions-2026-11-28.csv"`, ""},
	}
	for _, c := range cases {
		got := ContentDisposition(c.form, day, Format(c.format))
		ascii, utf8Part, _ := strings.Cut(got, "; filename*=")
		if ascii != c.want {
			t.Errorf("%q: got %s, want %s", c.form, ascii, c.want)
		}
		if c.wantUTF8 == "" {
			if utf8Part != "" {
				t.Errorf("%q: no filename* wanted, got %s", c.form, got)
			}
			continue
		}
		// What a browser reads: filename* decoded, preferred to filename.
		_, params, err := mime.ParseMediaType(got)
		if err != nil || params["filename"] != c.wantUTF8 {
			t.Errorf("%q: %s reads as %q (%v), want %q", c.form, got, params["filename"], err, c.wantUTF8)
		}
		if dec, _ := url.PathUnescape(strings.TrimPrefix(utf8Part, "UTF-8''")); dec != c.wantUTF8 {
			t.Errorf("%q: filename* %s", c.form, utf8Part)
		}
	}
}

func TestAFileNameIsBoundedAndASCII(t *testing.T) {
	name := Filename(strings.Repeat("Ä long form name ", 20), time.Time{}, CSV)
	if len(name) > maxNameBytes+len("-0001-01-01.csv") {
		t.Fatalf("too long: %q", name)
	}
	for _, r := range name {
		if r > 0x7e {
			t.Fatalf("not ASCII: %q", name)
		}
	}
	long := ContentDisposition(strings.Repeat("ä", 100), time.Time{}, CSV)
	_, params, err := mime.ParseMediaType(long)
	if err != nil || !strings.HasPrefix(params["filename"], strings.Repeat("ä", 30)+"-") {
		t.Fatalf("%s: %q %v", long, params["filename"], err)
	}
}
