package domain

import (
	"strconv"
	"strings"
)

// IsObfuscatedIPv4 reports whether host is one that browsers (the WHATWG URL
// standard) read as an IPv4 address although it is not written as one in
// dotted decimal: "2130706433", "0x7f.1", "0177.0.0.1", "127.1". Go's
// resolvers would send such a name to DNS instead, so an address check that
// trusts Go's reading can be walked around; formd refuses these hosts.
func IsObfuscatedIPv4(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "" || strings.Contains(host, ":") {
		return false // an IPv6 literal ([::ffff:127.0.0.1] included) is read as IPv6
	}
	labels := strings.Split(host, ".")
	if !isIPv4Number(labels[len(labels)-1]) {
		return false // does not end in a number: a domain name
	}
	return !isDottedDecimal(labels)
}

// isIPv4Number: a WHATWG IPv4 number, decimal, octal (leading 0) or hex (0x).
func isIPv4Number(label string) bool {
	if label == "" {
		return false
	}
	if rest, ok := strings.CutPrefix(label, "0x"); ok {
		for _, c := range rest {
			if !strings.ContainsRune("0123456789abcdef", c) {
				return false
			}
		}
		return true
	}
	for _, c := range label {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// isDottedDecimal: four decimal parts 0–255 without leading zeros.
func isDottedDecimal(labels []string) bool {
	if len(labels) != 4 {
		return false
	}
	for _, l := range labels {
		n, err := strconv.Atoi(l)
		if err != nil || n < 0 || n > 255 || strconv.Itoa(n) != l {
			return false
		}
	}
	return true
}
