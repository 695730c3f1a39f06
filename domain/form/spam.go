package form

import (
	"errors"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/form/saferegex"
)

// SpamMode says what the spam gate does with a submission it judges spam.
type SpamMode string

// Spam modes. Off is every form's default, including forms made before the
// spam setting existed; it is stored as the empty mode, so a form that never
// had a spam policy and one switched off read the same.
const (
	SpamOff    SpamMode = "off"
	SpamTag    SpamMode = "tag"
	SpamHold   SpamMode = "hold"
	SpamReject SpamMode = "reject"
)

// How long the Spam folder keeps a held submission (Spam.HoldDays) before
// its sealed payload is shredded unreviewed.
const (
	DefaultSpamHoldDays = 30
	MaxSpamHoldDays     = 90
)

// Limits on the spam rules: they are read and matched on every submission.
const (
	SpamMaxEntries    = 200
	SpamMaxWordRunes  = 100
	SpamMaxLinksLimit = 1000
)

// Spam is a form's spam policy: its mode and the rules that judge content
// without an engine.
type Spam struct {
	Mode SpamMode `json:"mode,omitempty"`
	// HoldDays is how long the Spam folder keeps a submission held in hold
	// mode; 0 is DefaultSpamHoldDays. Set only in hold mode.
	HoldDays int       `json:"holdDays,omitempty"`
	Rules    SpamRules `json:"rules,omitzero"`
}

// HeldUntil is when the Spam folder shreds a submission held at heldAt,
// if no one reviewed it.
func (s Spam) HeldUntil(heldAt time.Time) time.Time {
	days := s.HoldDays
	if days == 0 {
		days = DefaultSpamHoldDays
	}
	return heldAt.AddDate(0, 0, days)
}

// Shown is the mode as people and the API name it: off for the empty mode.
func (s Spam) Shown() SpamMode {
	if s.Mode == "" {
		return SpamOff
	}
	return s.Mode
}

// SpamRules are the spam signals a form checks, each optional. An IP in
// AllowIPs is never judged spam, whatever else matches.
type SpamRules struct {
	// AllowIPs and BlockIPs are IP addresses or CIDR prefixes, v4 or v6.
	AllowIPs []string `json:"allowIps,omitempty"`
	BlockIPs []string `json:"blockIps,omitempty"`
	// BlockEmailDomains match a submitter email at the domain or a subdomain.
	BlockEmailDomains []string `json:"blockEmailDomains,omitempty"`
	// BlockDisposable matches a submitter email at a domain of the shipped
	// disposable-address list (package spamdata).
	BlockDisposable bool `json:"blockDisposable,omitempty"`
	// BlockWords match whole words (or phrases) in any field, ignoring case.
	BlockWords []string `json:"blockWords,omitempty"`
	// BlockPatterns are regexes of the safe subset validation rules use,
	// matched against every field value.
	BlockPatterns []string `json:"blockPatterns,omitempty"`
	// MaxLinks is the most http(s) URLs all fields may hold together; 0 is
	// no limit.
	MaxLinks int `json:"maxLinks,omitempty"`
	// AllowedScripts are Unicode script names (Latin, Cyrillic, Han...):
	// letters of any other script are a signal.
	AllowedScripts []string `json:"allowedScripts,omitempty"`
}

// IsZero reports whether the policy is the default: off, without rules.
// Such a policy is left out of stored and compared settings, as it is of
// forms made before it existed.
func (s Spam) IsZero() bool {
	return s.Shown() == SpamOff && s.Rules.Count() == 0
}

// Summary says the policy in a few words, for the audit trail: "off",
// "tag, 3 rules", "hold for 14 days, 1 rule".
func (s Spam) Summary() string {
	out := string(s.Shown())
	if s.HoldDays != 0 {
		out += " for " + strconv.Itoa(s.HoldDays) + " days"
	}
	switch n := s.Rules.Count(); n {
	case 0:
	case 1:
		out += ", 1 rule"
	default:
		out += ", " + strconv.Itoa(n) + " rules"
	}
	return out
}

// Enabled reports whether the spam gate judges submissions.
func (s Spam) Enabled() bool { return s.Mode == SpamTag || s.Mode == SpamHold || s.Mode == SpamReject }

// Count is the number of rules set, for a summary such as "tag, 3 rules".
func (r SpamRules) Count() int {
	n := 0
	for _, set := range []bool{len(r.AllowIPs) > 0, len(r.BlockIPs) > 0, len(r.BlockEmailDomains) > 0, r.BlockDisposable,
		len(r.BlockWords) > 0, len(r.BlockPatterns) > 0, r.MaxLinks > 0, len(r.AllowedScripts) > 0} {
		if set {
			n++
		}
	}
	return n
}

// normalize stores off as the empty mode, trims entries, lower-cases domains and
// writes prefixes and script names the canonical way. Entries that do not
// parse are kept as typed, for validate to name.
func (s Spam) normalize() Spam {
	if s.Mode == SpamOff {
		s.Mode = ""
	}
	r := &s.Rules
	r.AllowIPs = spamList(r.AllowIPs, canonicalPrefix)
	r.BlockIPs = spamList(r.BlockIPs, canonicalPrefix)
	r.BlockEmailDomains = spamList(r.BlockEmailDomains, func(d string) string {
		return strings.TrimSuffix(strings.TrimPrefix(strings.ToLower(d), "@"), ".")
	})
	r.BlockWords = spamList(r.BlockWords, func(w string) string { return strings.Join(strings.Fields(w), " ") })
	r.BlockPatterns = spamList(r.BlockPatterns, func(p string) string { return p })
	r.AllowedScripts = spamList(r.AllowedScripts, func(name string) string {
		if canonical, ok := ScriptName(name); ok {
			return canonical
		}
		return name
	})
	return s
}

// spamList trims and rewrites each entry, dropping blanks; an empty list
// is nil, one form for "no rule".
func spamList(in []string, canonical func(string) string) []string {
	var out []string
	for _, e := range in {
		if e = strings.TrimSpace(e); e != "" {
			out = append(out, canonical(e))
		}
	}
	return out
}

// canonicalPrefix writes an IP as itself and a prefix in its masked form
// (203.0.113.7/24 is 203.0.113.0/24).
func canonicalPrefix(s string) string {
	if p, err := ParseSpamPrefix(s); err == nil {
		if p.IsSingleIP() {
			return p.Addr().String()
		}
		return p.String()
	}
	return s
}

// ParseSpamPrefix reads an allowIps or blockIps entry: an IP address (a
// prefix of its full length) or a CIDR prefix, v4 or v6.
func ParseSpamPrefix(s string) (netip.Prefix, error) {
	if strings.Contains(s, "/") {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return netip.Prefix{}, err
		}
		if a := p.Addr(); a.Is4In6() && p.Bits() >= 96 {
			// ::ffff:203.0.113.0/120 is 203.0.113.0/24, as remote IPs are unmapped.
			p = netip.PrefixFrom(a.Unmap(), p.Bits()-96)
		}
		return p.Masked(), nil
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Prefix{}, err
	}
	if a.Zone() != "" {
		return netip.Prefix{}, errors.New("an IP address with a zone names no remote host")
	}
	a = a.Unmap()
	return netip.PrefixFrom(a, a.BitLen()), nil
}

// ScriptName is the unicode package's name of a script, matched ignoring
// case (latin is Latin); false when no script has the name.
func ScriptName(name string) (string, bool) {
	if _, ok := unicode.Scripts[name]; ok {
		return name, true
	}
	for known := range unicode.Scripts {
		if strings.EqualFold(known, name) {
			return known, true
		}
	}
	return "", false
}

// validate checks the policy; the error names the offending field, e.g.
// "spam.rules.blockIps[2]".
func (s Spam) validate() error {
	switch s.Mode {
	case "", SpamOff, SpamTag, SpamHold, SpamReject:
	default:
		return domain.Invalid("spam.mode", "the spam mode must be one of off, tag, hold, reject")
	}
	if s.HoldDays != 0 && s.Mode != SpamHold {
		return domain.Invalid("spam.holdDays", "a hold in days is set only while spam.mode is hold")
	}
	if s.HoldDays < 0 || s.HoldDays > MaxSpamHoldDays {
		return domain.Invalid("spam.holdDays", "the Spam folder keeps a held submission between 1 and %d days", MaxSpamHoldDays)
	}
	r := s.Rules
	lists := []struct {
		field string
		list  []string
		check func(string) string
	}{
		{"allowIps", r.AllowIPs, checkSpamPrefix},
		{"blockIps", r.BlockIPs, checkSpamPrefix},
		{"blockEmailDomains", r.BlockEmailDomains, checkSpamDomain},
		{"blockWords", r.BlockWords, checkSpamWord},
		{"blockPatterns", r.BlockPatterns, checkSpamPattern},
		{"allowedScripts", r.AllowedScripts, checkSpamScript},
	}
	for _, l := range lists {
		path := "spam.rules." + l.field
		if len(l.list) > SpamMaxEntries {
			return domain.Invalid(path, "at most %d entries are allowed, got %d", SpamMaxEntries, len(l.list))
		}
		for i, e := range l.list {
			if problem := l.check(e); problem != "" {
				return domain.Invalid(indexed(path, i), "%q %s", e, problem)
			}
			if slices.Contains(l.list[:i], e) {
				return domain.Invalid(indexed(path, i), "%q is listed twice", e)
			}
		}
	}
	steps := 0
	for i, p := range r.BlockPatterns {
		_, size, _ := saferegex.CompileSized(p) // checkSpamPattern compiled it already
		steps += size
		// Each pattern may meet a value of the longest length: together
		// they must fit the matching budget, as validation regexes do.
		if steps*domain.MaxFieldValueBytes > domain.RegexBudget {
			return domain.Invalid(indexed("spam.rules.blockPatterns", i),
				"the blocked patterns together are too costly to check: at most %d compiled steps in all (simplify or remove some patterns)",
				domain.RegexBudget/domain.MaxFieldValueBytes)
		}
	}
	if r.MaxLinks < 0 || r.MaxLinks > SpamMaxLinksLimit {
		return domain.Invalid("spam.rules.maxLinks", "the most links must be between 0 (no limit) and %d", SpamMaxLinksLimit)
	}
	return nil
}

func checkSpamPrefix(s string) string {
	if _, err := ParseSpamPrefix(s); err != nil {
		return "is not an IP address or a CIDR prefix such as 203.0.113.0/24 or 2001:db8::/32"
	}
	return ""
}

func checkSpamDomain(d string) string {
	if !isHostname(d) || !strings.Contains(d, ".") {
		return "is not a domain such as example.com"
	}
	return ""
}

func checkSpamWord(w string) string {
	if n := utf8.RuneCountInString(w); n > SpamMaxWordRunes {
		return "is longer than " + strconv.Itoa(SpamMaxWordRunes) + " characters"
	}
	if strings.ContainsFunc(w, unicode.IsControl) {
		return "is not a word or phrase on one line"
	}
	if !strings.ContainsFunc(w, IsWordRune) {
		return "has no letter or digit to match"
	}
	return ""
}

func checkSpamPattern(p string) string {
	if _, err := saferegex.Compile(p); err != nil {
		return "is refused: " + err.Error()
	}
	return ""
}

func checkSpamScript(name string) string {
	if _, ok := unicode.Scripts[name]; !ok {
		return "is not a Unicode script name such as Latin, Cyrillic, Greek, Arabic or Han"
	}
	return ""
}

// IsWordRune reports whether r is part of a word for the blockWords rule:
// a letter, digit or mark. Word boundaries are where one ends.
func IsWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}
