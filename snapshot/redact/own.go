package redact

import (
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// The compact-guard layer: what gitleaks' rules lack. Secrets found by the
// shape of their surroundings (assignments to secret-sounding names, URL
// credentials, Authorization headers, curl -u, labelled AWS secret keys),
// private key blocks cut off before their END line, and token formats the
// rule set does not know or knows too narrowly.

// redactRule is one kind of secret. Every rule starts at a trigger, a literal the
// secret or its label begins with: the text is searched for triggers (cheap)
// and the rule's pattern, anchored with ^, is tried only there, on at most
// window bytes. That keeps the cost linear and small whatever the text, and
// leaves boundary checks (Go's regexp has no look-behind) to span.
type redactRule struct {
	kind string
	// triggers are literals; with fold they are lower case and match in any
	// case.
	triggers []string
	fold     bool
	re       *lazyRegexp
	// span picks what to replace in match m (indexes into s), or false to
	// leave the match alone.
	span func(s string, m []int) (int, int, bool)
	// scan replaces re and span for rules parsed by hand.
	scan func(s string) [][2]int
	// wordStart: a match must not start inside a word.
	wordStart bool
	// window bounds the text the pattern sees from its trigger (default
	// defaultWindow): a backtracking match costs in proportion to it.
	window int
	// more, when set, says which bytes continue an accepted value past the
	// window, so that a token of any length goes whole (a 700-character
	// bearer token leaves no tail).
	more func(byte) bool
}

const defaultWindow = 512

// apply replaces every accepted match in s.
func (r *redactRule) apply(s string) (string, int) {
	var spans [][2]int
	if r.scan != nil {
		spans = r.scan(s)
	} else {
		f := newTriggerFinder(s, r.triggers, r.fold)
		w := r.window
		if w == 0 {
			w = defaultWindow
		}
		for pos := 0; ; {
			at, _ := f.next(pos)
			if at < 0 {
				break
			}
			pos = at + 1
			if inMarker(s, at) {
				continue // "[REDACTED:authorization]" is not a header
			}
			if r.wordStart && !boundaryBefore(s, at) {
				continue // checked before matching: "xsk-ant-" repeated costs nothing
			}
			m := r.re.get().FindStringSubmatchIndex(s[at:windowEnd(s, at+w)])
			if m == nil {
				continue
			}
			for i := range m {
				if m[i] >= 0 {
					m[i] += at
				}
			}
			if a, b, ok := r.span(s, m); ok && a < b && a >= at {
				for r.more != nil && b < len(s) && r.more(s[b]) {
					b++
				}
				spans = append(spans, [2]int{a, b})
				pos = b
			} else if r.wordStart {
				pos = m[1] // a mask or a word: no token starts inside it
			}
		}
	}
	if len(spans) == 0 {
		return s, 0
	}
	mk := redactMarker(r.kind)
	var b strings.Builder
	b.Grow(len(s) + len(spans)*len(mk))
	last := 0
	for _, sp := range spans {
		b.WriteString(s[last:sp[0]])
		b.WriteString(mk)
		last = sp[1]
	}
	b.WriteString(s[last:])
	return b.String(), len(spans)
}

// windowEnd cuts a window at end, or earlier at the start of a character, so
// that a match ending at the window's end never splits a UTF-8 sequence.
func windowEnd(s string, end int) int {
	if end >= len(s) {
		return len(s)
	}
	for k := 0; k < utf8.UTFMax && end > 0 && !utf8.RuneStart(s[end]); k++ {
		end--
	}
	return end
}

// triggerFinder yields, in order, the occurrences of any of its needles. It keeps
// where each needle next occurs, so that each needle's search only moves
// forward: the total cost is linear in the text. A folded needle is searched
// as two entries, one per case of its first byte, with strings.IndexByte.
type triggerFinder struct {
	s       string
	entries []triggerFinderEntry
}

type triggerFinderEntry struct {
	needle string
	first  byte // for folded needles: the first byte in the case searched
	fold   bool
	at     int // -2: not searched yet; -1: no more
}

func newTriggerFinder(s string, needles []string, fold bool) *triggerFinder {
	f := &triggerFinder{s: s}
	for _, w := range needles {
		f.entries = append(f.entries, triggerFinderEntry{needle: w, first: w[0], fold: fold, at: -2})
		if fold && isLowerByte(w[0]) {
			f.entries = append(f.entries, triggerFinderEntry{needle: w, first: w[0] - ('a' - 'A'), fold: true, at: -2})
		}
	}
	return f
}

// next returns the first occurrence at or after pos and the needle's length,
// or -1.
func (f *triggerFinder) next(pos int) (int, int) {
	at, l := -1, 0
	for i := range f.entries {
		e := &f.entries[i]
		if e.at != -1 && e.at < pos {
			e.at = -1
			if e.fold {
				for p := pos; p < len(f.s); p++ {
					j := strings.IndexByte(f.s[p:], e.first)
					if j < 0 {
						break
					}
					p += j
					if hasPrefixFold(f.s[p:], e.needle) {
						e.at = p
						break
					}
				}
			} else if j := strings.Index(f.s[pos:], e.needle); j >= 0 {
				e.at = pos + j
			}
		}
		if e.at >= 0 && (at < 0 || e.at < at) {
			at, l = e.at, len(e.needle)
		}
	}
	return at, l
}

func hasPrefixFold(s, lowerPrefix string) bool {
	if len(s) < len(lowerPrefix) {
		return false
	}
	for i := 0; i < len(lowerPrefix); i++ {
		c := s[i]
		if isUpperByte(c) {
			c += 'a' - 'A'
		}
		if c != lowerPrefix[i] {
			return false
		}
	}
	return true
}

// triggerTable lists, for each first byte, the triggers starting with it,
// and triggerPairs marks the first two bytes of every trigger (in every case
// for folded ones), so that one cheap pass over a text tells which rules can
// match at all: most bytes are dismissed by a single bit test.
var (
	triggerTable [256][]triggerRef
	triggerPairs [1 << 16 / 64]uint64
)

type triggerRef struct {
	needle string
	fold   bool
	bit    uint32
}

// triggersOnce builds the tables on first use: package initialisation is
// paid by every process, most of which redact nothing (PF-16).
var triggersOnce sync.Once

func buildTriggers() {
	if len(redactRules) > 32 {
		panic("snapshot: too many redaction rules for the trigger mask")
	}
	cases := func(c byte, fold bool) []byte {
		if fold && isLowerByte(c) {
			return []byte{c, c - ('a' - 'A')}
		}
		return []byte{c}
	}
	for i, r := range redactRules {
		for _, t := range r.triggers {
			ref := triggerRef{needle: t, fold: r.fold, bit: 1 << i}
			for _, c0 := range cases(t[0], r.fold) {
				triggerTable[c0] = append(triggerTable[c0], ref)
				for _, c1 := range cases(t[1], r.fold) {
					p := uint16(c0)<<8 | uint16(c1)
					triggerPairs[p/64] |= 1 << (p % 64)
				}
			}
		}
	}
}

// triggerMask says which rules have a trigger in s (bit i for redactRules[i]).
func triggerMask(s string) uint32 {
	triggersOnce.Do(buildTriggers)
	var m uint32
	for i := 0; i+1 < len(s); i++ {
		p := uint16(s[i])<<8 | uint16(s[i+1])
		if triggerPairs[p/64]&(1<<(p%64)) == 0 {
			continue
		}
		for _, t := range triggerTable[s[i]] {
			if m&t.bit != 0 {
				continue
			}
			if t.fold && hasPrefixFold(s[i:], t.needle) || !t.fold && strings.HasPrefix(s[i:], t.needle) {
				m |= t.bit
			}
		}
	}
	return m
}

// tokenSpan accepts a provider token that does not start in the middle of a
// word ("task-ant-…" is not "sk-ant-…") and is not a mask such as
// ghp_xxxxxxxx….
func tokenSpan(s string, m []int) (int, int, bool) {
	a, b := m[0], m[1]
	if !boundaryBefore(s, a) {
		return 0, 0, false
	}
	if isMasked(s[a:b]) {
		return 0, 0, false
	}
	return a, b, true
}

// groupSpan replaces submatch g when it holds a secret-looking value.
func groupSpan(g int) func(string, []int) (int, int, bool) {
	return func(s string, m []int) (int, int, bool) {
		a, b := m[2*g], m[2*g+1]
		if a < 0 || !secretValue(s[a:b], true) {
			return 0, 0, false
		}
		return a, b, true
	}
}

func tokenRule(kind, pattern string, triggers ...string) *redactRule {
	return &redactRule{kind: kind, re: lazyRE(`^(?:` + pattern + `)`), triggers: triggers, span: tokenSpan,
		wordStart: true, more: isTokenByte}
}

// boundaryBefore reports whether a token may start at s[i]: at the start, after
// a byte that is not part of a word, or right after a literal escape that
// ends in a letter or digit (\n, \t, \r, %3D and the other escapes that
// decode spells out).
func boundaryBefore(s string, i int) bool {
	if i == 0 || !isWordByte(s[i-1]) {
		return true
	}
	if i >= 2 && s[i-2] == '\\' && (s[i-1] == 'n' || s[i-1] == 't' || s[i-1] == 'r') {
		return true
	}
	if i >= 3 && s[i-3] == '%' {
		x, ok := hexByte(s[i-2], s[i-1])
		return ok && strings.IndexByte(percentDecoded, x) >= 0
	}
	return false
}

// isTokenByte: letters, digits, _ and -, the alphabet of provider tokens.
func isTokenByte(c byte) bool { return isWordByte(c) || c == '-' }

// redactRules run in this order: provider formats first (their kind is the most
// telling), then the generic shapes, which skip values that already hold a
// marker.
var redactRules = []*redactRule{
	func() *redactRule {
		// A JWE: five parts, the encrypted key empty with "alg":"dir"
		// (gitleaks' jwt rule knows three-part tokens only).
		r := tokenRule(KindJWE, `eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+`, "eyJ")
		r.window = 16 << 10 // a token carrying many claims runs to kilobytes
		r.more = isTokenByte
		return r
	}(),
	// gitleaks knows sk-ant-api03 and sk-ant-admin01 keys of their exact
	// length; Claude Code's OAuth tokens (sk-ant-oat01-, sk-ant-ort01-) and
	// other sk-ant- keys are left to this rule.
	tokenRule(KindAnthropic, `sk-ant-[A-Za-z0-9_-]{16,}`, "sk-ant-"),
	// gitleaks' openai-api-key needs the T3BlbkFJ marker; other providers'
	// sk- keys (DeepSeek, Moonshot, OpenRouter …) have none.
	tokenRule(KindOpenAI, `sk-(?:(?:proj|svcacct|admin|or-v1)-[A-Za-z0-9_-]{16,}|[A-Za-z0-9]{20,})`, "sk-"),
	{
		// aws_secret_access_key, AWS_SECRET_ACCESS_KEY, "SecretAccessKey":
		// the 40-character value after it (gitleaks has no rule for it).
		kind: KindAWSSecret,
		re: lazyRE(`^(?i:secret_?access_?key)["']?\]?(?:[ \t]*[:=][ \t]*|[ \t]+)["']?` +
			`([A-Za-z0-9/+]{40})`),
		triggers: []string{"secret"}, fold: true,
		span: func(s string, m []int) (int, int, bool) {
			a, b := m[2], m[3]
			if b < len(s) && (isAlnumByte(s[b]) || s[b] == '/' || s[b] == '+') || isMasked(s[a:b]) {
				return 0, 0, false
			}
			return a, b, true
		},
	},
	tokenRule(KindGoogleOAuth, `ya29\.[0-9A-Za-z_-]{20,}`, "ya29."),
	tokenRule(KindStripeWebhook, `whsec_[A-Za-z0-9]{16,}`, "whsec_"),
	// Provider formats gitleaks lacks (tokens.go).
	googleClientSecretRule,
	notionRule,
	dockerHubRule,
	squareSecretRule,
	mailchimpRule,
	telegramURLRule,
	azureSASRule,
	{
		kind: KindAuthorization,
		re: lazyRE(`^(?i:(?:proxy-)?authorization)["']?\]?[ \t]*[:=][ \t]*["']?` +
			`(?:(?i:bearer|basic|token|bot)[ \t]+)?([^\s"'<>,;\\]+)`),
		triggers: []string{"authorization", "proxy-authorization"}, fold: true,
		span: groupSpan(1),
		more: func(c byte) bool { return !isValueStop(c) && c != '\\' },
	},
	{
		// A bare "Bearer <token>" outside a header; the token must hold a
		// digit so that prose ("bearer authentication") survives.
		kind:     KindAuthorization,
		re:       lazyRE(`^(?i:bearer)[ \t]+([A-Za-z0-9._~+/=-]{16,})`),
		triggers: []string{"bearer"}, fold: true,
		more: func(c byte) bool {
			return isTokenByte(c) || c == '.' || c == '~' || c == '+' || c == '/' || c == '='
		},
		span: func(s string, m []int) (int, int, bool) {
			a, b := m[2], m[3]
			v := s[a:b]
			if m[0] > 0 && isWordByte(s[m[0]-1]) || !strings.ContainsAny(v, "0123456789") || !secretValue(v, false) {
				return 0, 0, false
			}
			return a, b, true
		},
	},
	{
		kind:     KindAuthorization,
		triggers: []string{"curl"},
		scan:     scanCurlUser,
	},
	{
		// scheme://user:password@host: only the password goes.
		kind:     KindURLCredentials,
		triggers: []string{"://"},
		scan:     scanURLPasswords,
	},
	// Secrets a syntax marks (syntax.go, markup.go), before
	// assignments, which would take some of them with a vaguer kind.
	connectionStringRule,
	netrcRule,
	opensslPassRule,
	mysqlPasswordRule,
	envDefaultRule,
	cookieRule,
	xmlElementRule,
	{
		kind:     KindAssignment,
		triggers: assignmentWords, fold: true,
		scan: scanAssignments,
	},
}

// inMarker reports whether s[i] lies inside a [REDACTED:<kind>] marker.
func inMarker(s string, i int) bool {
	for k := i - 1; k >= 0 && k >= i-MaxRedactionGrowth; k-- {
		switch s[k] {
		case ']':
			return false
		case '[':
			return strings.HasPrefix(s[k:], RedactedPrefix)
		}
	}
	return false
}

func wholeWord(s string, i, n int) bool {
	return (i == 0 || !isWordByte(s[i-1])) && (i+n == len(s) || !isWordByte(s[i+n]))
}

func skipBlanks(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// isValueStop ends an unquoted value: blanks and the characters that close
// or separate values in shells, URLs, JSON and code.
func isValueStop(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', '\v', '\f', '"', '\'', '`', ',', ';', '&', '|', '<', '>', '(', ')', '{', '}', '[', ']':
		return true
	}
	return false
}

func isNameByte(c byte) bool { return isAlnumByte(c) || c == '_' || c == '-' || c == '.' }
func isWordByte(c byte) bool { return isAlnumByte(c) || c == '_' }
func isAlnumByte(c byte) bool {
	return isAlphaByte(c) || isDigitByte(c)
}
func isAlphaByte(c byte) bool { return isLowerByte(c) || isUpperByte(c) }
func isLowerByte(c byte) bool { return c >= 'a' && c <= 'z' }
func isUpperByte(c byte) bool { return c >= 'A' && c <= 'Z' }
func isDigitByte(c byte) bool { return c >= '0' && c <= '9' }

// lazyRegexp compiles on first use, so that processes that never redact
// (postcompact) do not pay for compiling every rule at start.
type lazyRegexp struct {
	once sync.Once
	src  string
	re   *regexp.Regexp
}

func lazyRE(src string) *lazyRegexp { return &lazyRegexp{src: src} }

func (l *lazyRegexp) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.src) })
	return l.re
}
