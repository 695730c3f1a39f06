package httpapi

import (
	"errors"
	"runtime"
	"strings"
	"testing"
)

// Many repeats of one name (a=&a=&…) must cost work in proportion to the
// body: joining them one by one copied the growing value on every repeat
// (about 270 MB of copying for a 256 KiB body). Measured in bytes
// allocated, not time, so the test does not depend on the machine.
func TestRepeatedFieldNamesCostLinearWork(t *testing.T) {
	cases := map[string]func(string) error{
		"urlencoded": func(body string) error { _, err := decodeURLEncoded(body); return err },
		"json": func(body string) error {
			_, err := decodeJSONFields([]byte(`{"a":[` + strings.TrimSuffix(strings.Repeat(`"",`, len(body)/3), ",") + `]}`))
			return err
		},
	}
	for name, decode := range cases {
		t.Run(name, func(t *testing.T) {
			body := strings.Repeat("a=&", MaxSubmissionBytes/3)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			err := decode(body)
			runtime.ReadMemStats(&after)
			var de *decodeError
			if !errors.As(err, &de) || !strings.Contains(de.message, "too long") {
				t.Fatalf("decode = %v, want the field-too-long refusal", err)
			}
			if allocated := after.TotalAlloc - before.TotalAlloc; allocated > 32<<20 {
				t.Errorf("decoding %d bytes of repeats allocated %d MiB; want work linear in the body", len(body), allocated>>20)
			}
		})
	}
}

func TestRepeatedFieldNamesAreJoinedInOrder(t *testing.T) {
	fields, err := decodeURLEncoded("topic=a&name=Ann&topic=b&topic=c")
	if err != nil {
		t.Fatal(err)
	}
	if len(fields) != 2 || fields[0].Name != "topic" || fields[0].Value != "a, b, c" || fields[1].Value != "Ann" {
		t.Errorf("fields = %+v", fields)
	}
	// The joined length counts: 2 values of 16 KiB and the separator exceed 32 KiB.
	half := strings.Repeat("x", MaxFieldValueBytes/2)
	if _, err := decodeURLEncoded("a=" + half + "&a=" + half); err == nil {
		t.Errorf("a joined value over %d bytes was accepted", MaxFieldValueBytes)
	}
}

// A field name is printed as a line label in notification mails: control
// characters in it (CR LF above all) would forge lines of their own.
func TestFieldNamesWithControlCharactersAreRefused(t *testing.T) {
	cases := map[string]func() error{
		"json CRLF": func() error {
			_, err := decodeJSONFields([]byte(`{"name\r\nX-Field: y":"v"}`))
			return err
		},
		"json tab": func() error { _, err := decodeJSONFields([]byte(`{"a\tb":"v"}`)); return err },
		"urlencoded LF": func() error {
			_, err := decodeURLEncoded("name%0AX-Field%3A+y=v")
			return err
		},
		"urlencoded C1 control": func() error { _, err := decodeURLEncoded("a%C2%85b=v"); return err },
	}
	for name, decode := range cases {
		t.Run(name, func(t *testing.T) {
			err := decode()
			var de *decodeError
			if !errors.As(err, &de) || de.status != 400 {
				t.Fatalf("decode = %v, want a 400", err)
			}
			if !strings.Contains(de.message, "control characters") || strings.ContainsAny(de.message, "\r\n\t") {
				t.Errorf("message %q must name the field with its control characters escaped", de.message)
			}
		})
	}
	if _, err := decodeJSONFields([]byte(`{"message":"line one\r\nline two\ttabbed"}`)); err != nil {
		t.Errorf("line breaks and tabs in values stay allowed: %v", err)
	}
}
