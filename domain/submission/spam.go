package submission

import (
	"net/netip"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/form/saferegex"
	"github.com/formd/formd/domain/form/spamdata"
)

// The spam gate judges content by the form's spam rules (form.SpamRules),
// after the honeypot. Each rule that matches is a signal worth one point of
// the score; any signal makes the submission spam, unless the remote IP is
// on allowIps, which wins over every signal. A content classifier's answer,
// when the caller has one, joins the rules as Request.Classification.

// MsgSpamContent is what a submitter refused by the spam gate is told: that
// content filtering refused it, not which rule did.
const MsgSpamContent = "Submission rejected by the form's content filter: it was judged to be spam."

// MsgSpamHeld starts the spam gate's trace of a submission held for the
// form's Spam folder: accepted, answered as any other, and sent nowhere
// until the owner releases it.
const MsgSpamHeld = "held in the Spam folder, nothing sent until it is released:"

// Classification is what a content classifier said of a submission. The
// spam gate counts its score and reasons with the rules' signals; an
// unavailable classifier is no signal (the gate fails open).
type Classification struct {
	Score       float64
	Spam        bool
	Reasons     []string
	Unavailable bool
}

// SpamVerdict is the spam gate's judgement of a submission.
type SpamVerdict struct {
	// Spam is true when a signal matched and no allow rule did.
	Spam bool
	// Score is the number of rule signals plus the classifier's score.
	Score float64
	// Reasons are the signals that matched, e.g. `blockWords matched "viagra"`.
	Reasons []string
	// Allowed names the allowIps entry the remote IP matched; blank for none.
	Allowed string
	// outcomes are every rule's outcome, in the order of form.SpamRules,
	// for the gate trace.
	outcomes []string
}

// Trace is the verdict for the gate trace: the score and every rule's
// outcome, e.g. `spam, score 2: blockWords matched "viagra"; maxLinks 5 > 3`.
func (s SpamVerdict) Trace() string {
	head := "not spam"
	switch {
	case s.Allowed != "":
		head = "not spam (allowIps wins)"
	case s.Spam:
		head = "spam"
	}
	head += ", score " + strconv.FormatFloat(s.Score, 'f', -1, 64)
	if len(s.outcomes) == 0 {
		return head + ": no rules"
	}
	return head + ": " + strings.Join(s.outcomes, "; ")
}

// JudgeSpam evaluates the rules on a submission's fields, submitter email
// and remote IP, with the classifier's answer when there is one (nil: none
// was asked for). Fields that steer the submission rather than say
// something (access keys, captcha tokens, the honeypot, redirect and
// webhook URLs) are not judged.
func JudgeSpam(rules form.SpamRules, fields []Field, email, remoteIP string, c *Classification) SpamVerdict {
	var s SpamVerdict
	signal := func(reason string) {
		s.Reasons = append(s.Reasons, reason)
		s.outcomes = append(s.outcomes, reason)
		s.Score++
	}
	clean := func(rule string) { s.outcomes = append(s.outcomes, rule+" no match") }

	remote, remoteErr := netip.ParseAddr(remoteIP)
	remote = remote.Unmap()
	if len(rules.AllowIPs) > 0 {
		if p, ok := matchPrefix(rules.AllowIPs, remote, remoteErr == nil); ok {
			s.Allowed = p
			s.outcomes = append(s.outcomes, "allowIps matched "+p)
		} else {
			clean("allowIps")
		}
	}
	if len(rules.BlockIPs) > 0 {
		if p, ok := matchPrefix(rules.BlockIPs, remote, remoteErr == nil); ok {
			signal("blockIps matched " + p)
		} else {
			clean("blockIps")
		}
	}
	host := emailDomain(email)
	if len(rules.BlockEmailDomains) > 0 {
		if d, ok := matchDomain(rules.BlockEmailDomains, host); ok {
			signal("blockEmailDomains matched " + d)
		} else {
			clean("blockEmailDomains")
		}
	}
	if rules.BlockDisposable {
		if d, ok := spamdata.DisposableDomain(host); ok && host != "" {
			signal("blockDisposable matched " + d)
		} else {
			clean("blockDisposable")
		}
	}
	texts := judgedTexts(fields)
	if len(rules.BlockWords) > 0 {
		if w, ok := firstBlockedWord(rules.BlockWords, texts); ok {
			signal("blockWords matched " + strconv.Quote(w))
		} else {
			clean("blockWords")
		}
	}
	if len(rules.BlockPatterns) > 0 {
		p, matched, complete := firstBlockedPattern(rules.BlockPatterns, texts)
		switch {
		case matched:
			signal("blockPatterns matched " + strconv.Quote(p))
		case !complete:
			s.outcomes = append(s.outcomes, "blockPatterns no match within the matching budget (long values were not all checked)")
		default:
			clean("blockPatterns")
		}
	}
	if rules.MaxLinks > 0 {
		if n := countLinks(texts); n > rules.MaxLinks {
			signal("maxLinks " + strconv.Itoa(n) + " > " + strconv.Itoa(rules.MaxLinks))
		} else {
			s.outcomes = append(s.outcomes, "maxLinks "+strconv.Itoa(n)+" <= "+strconv.Itoa(rules.MaxLinks))
		}
	}
	if len(rules.AllowedScripts) > 0 {
		if script, n := foreignLetters(rules.AllowedScripts, texts); n > 0 {
			signal("allowedScripts " + strconv.Itoa(n) + " letters outside them (" + script + ")")
		} else {
			clean("allowedScripts")
		}
	}
	if c != nil {
		switch {
		case c.Unavailable:
			s.outcomes = append(s.outcomes, MsgSpamCheckUnavailable+" (no signal)")
		case c.Spam:
			reason := "classifier spam, score " + strconv.FormatFloat(c.Score, 'f', -1, 64) + classifierReasons(c.Reasons)
			s.Reasons = append(s.Reasons, reason)
			s.outcomes = append(s.outcomes, reason)
			s.Score += c.Score
		default:
			// Below the spam line, the symbols still tell an integrator what
			// the classifier leans on (a Bayes symbol after learning, say).
			s.outcomes = append(s.outcomes, "classifier not spam, score "+strconv.FormatFloat(c.Score, 'f', -1, 64)+classifierReasons(c.Reasons))
		}
	}
	s.Spam = len(s.Reasons) > 0 && s.Allowed == ""
	return s
}

// spamGate runs the spam gate: skipped while the form's mode is off; in
// reject mode spam fails it; in tag mode spam passes, tagged for the plan;
// in hold mode spam passes, held for the Spam folder.
// With a classifier configured it first waits for its classification
// (asksClassifier). The trace names every rule's outcome; a live submitter
// refused is told only MsgSpamContent.
func (v *Verdict) spamGate(r Request, st form.Settings) bool {
	p := st.Spam
	if !p.Enabled() {
		v.skip(GateSpam, "the form's spam mode is off")
		return true
	}
	if v.asksClassifier(r, st) {
		return false
	}
	s := JudgeSpam(p.Rules, r.Fields, r.Envelope.Email, r.RemoteIP, r.Classification)
	if s.Spam && p.Mode == form.SpamReject {
		msg := MsgSpamContent
		if r.DryRun {
			msg += " " + s.Trace()
		}
		return v.check(GateSpam, msg)
	}
	trace := s.Trace()
	if s.Spam {
		v.spam = &s
		v.held = p.Mode == form.SpamHold
		if v.held {
			trace = MsgSpamHeld + " " + trace
		}
	}
	v.gates = append(v.gates, GateResult{Gate: GateSpam, Outcome: OutcomePassed, Message: trace})
	return true
}

// classifierReasons writes the classifier's reasons for a trace:
// " (BAYES_SPAM 5.1, MISSING_MID 2.5)", or nothing when it gave none.
func classifierReasons(reasons []string) string {
	if len(reasons) == 0 {
		return ""
	}
	return " (" + strings.Join(reasons, ", ") + ")"
}

// matchPrefix is the first entry whose IP or CIDR prefix holds ip.
func matchPrefix(entries []string, ip netip.Addr, valid bool) (string, bool) {
	if !valid {
		return "", false
	}
	for _, e := range entries {
		if p, err := form.ParseSpamPrefix(e); err == nil && p.Contains(ip) {
			return e, true
		}
	}
	return "", false
}

// emailDomain is the lower-case domain of an address; blank when there is none.
func emailDomain(email string) string {
	at := strings.LastIndexByte(email, '@')
	if at < 0 {
		return ""
	}
	return strings.TrimSuffix(strings.ToLower(strings.TrimSpace(email[at+1:])), ".")
}

// matchDomain is the first listed domain host is or is a subdomain of.
func matchDomain(domains []string, host string) (string, bool) {
	if host == "" {
		return "", false
	}
	for _, d := range domains {
		if host == d || strings.HasSuffix(host, "."+d) {
			return d, true
		}
	}
	return "", false
}

// judgedTexts are the values the content rules read: every field but those
// that steer the submission.
func judgedTexts(fields []Field) []string {
	out := make([]string, 0, len(fields))
	for _, f := range fields {
		switch strings.ToLower(f.Name) {
		case FieldAccessKey, FieldAPIKey, FieldBotcheck, FieldRedirect, FieldWebhook, FieldCC:
			continue
		}
		if !IsCaptchaToken(f.Name) && f.Value != "" {
			out = append(out, f.Value)
		}
	}
	return out
}

// firstBlockedWord is the first blocked word or phrase found as a whole
// word, ignoring case, in any text.
func firstBlockedWord(words, texts []string) (string, bool) {
	lowered := make([]string, len(texts))
	for i, t := range texts {
		lowered[i] = strings.ToLower(t)
	}
	for _, w := range words {
		lw := strings.ToLower(w)
		for _, t := range lowered {
			if containsWord(t, lw) {
				return w, true
			}
		}
	}
	return "", false
}

// containsWord reports whether word occurs in text with no letter, digit
// or mark right before or after it.
func containsWord(text, word string) bool {
	for from := 0; from <= len(text)-len(word); {
		i := strings.Index(text[from:], word)
		if i < 0 {
			return false
		}
		start, end := from+i, from+i+len(word)
		before, _ := utf8.DecodeLastRuneInString(text[:start])
		after, _ := utf8.DecodeRuneInString(text[end:])
		if (start == 0 || !form.IsWordRune(before)) && (end == len(text) || !form.IsWordRune(after)) {
			return true
		}
		_, size := utf8.DecodeRuneInString(text[start:])
		from = start + size
	}
	return false
}

// firstBlockedPattern is the first pattern matching any text. Matching
// spends at most domain.RegexBudget steps; complete is false when texts
// were left unmatched for want of budget.
func firstBlockedPattern(patterns, texts []string) (pattern string, matched, complete bool) {
	budget := domain.RegexBudget
	complete = true
	for _, p := range patterns {
		re, size, err := saferegex.CompileSized(p)
		if err != nil {
			continue // saved before a stricter subset: never matched
		}
		for _, t := range texts {
			cost := len(t) * size
			if cost > budget {
				complete = false
				continue
			}
			budget -= cost
			if re.MatchString(t) {
				return p, true, true
			}
		}
	}
	return "", false, complete
}

// countLinks counts http and https URLs in all texts, ignoring case.
func countLinks(texts []string) int {
	n := 0
	for _, t := range texts {
		l := strings.ToLower(t)
		n += strings.Count(l, "http://") + strings.Count(l, "https://")
	}
	return n
}

// foreignLetters counts the letters of no allowed script and names the
// script of the first one.
func foreignLetters(allowed []string, texts []string) (first string, n int) {
	tables := make([]*unicode.RangeTable, 0, len(allowed))
	latin := false
	for _, name := range allowed {
		if t, ok := unicode.Scripts[name]; ok {
			tables = append(tables, t)
			latin = latin || name == "Latin"
		}
	}
	for _, t := range texts {
		for _, r := range t {
			if !unicode.IsLetter(r) || (latin && r < utf8.RuneSelf) {
				continue
			}
			if !unicode.IsOneOf(tables, r) {
				if n == 0 {
					first = scriptOf(r)
				}
				n++
			}
		}
	}
	return first, n
}

// scriptOf names the script of r; "unknown" for none.
func scriptOf(r rune) string {
	for name, t := range unicode.Scripts {
		if unicode.Is(t, r) {
			return name
		}
	}
	return "unknown"
}
