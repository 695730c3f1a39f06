package domain_test

import (
	"testing"

	"github.com/formd/formd/domain"
)

func TestIsObfuscatedIPv4(t *testing.T) {
	for host, want := range map[string]bool{
		"2130706433":        true, // 127.0.0.1 as one number
		"0x7f.1":            true,
		"0177.0.0.1":        true,
		"127.1":             true,
		"0x7f000001":        true,
		"127.0.0.1.":        false,
		"127.0.0.1":         false,
		"10.0.0.1":          false,
		"hooks.example.com": false,
		"1.example.com":     false,
		"example.com.0x":    true, // ends in a hex number: browsers parse it as IPv4 and fail
		"":                  false,
		"0":                 true,
		"256.0.0.1":         true,  // ends in a number but is no dotted-decimal address
		"::ffff:127.0.0.1":  false, // IPv6, IPv4-mapped: the SSRF guard reads and refuses it
		"[::ffff:10.0.0.1]": false,
		"::1":               false,
	} {
		if got := domain.IsObfuscatedIPv4(host); got != want {
			t.Errorf("IsObfuscatedIPv4(%q) = %v, want %v", host, got, want)
		}
	}
}
