package snapshot

import (
	"regexp"
	"strings"
	"sync"
	"unicode"
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
	{
		kind:     KindAssignment,
		triggers: assignmentWords, fold: true,
		scan: scanAssignments,
	},
}

// curlUserRE is what follows -u or --user in a curl command: user:password.
var curlUserRE = lazyRE(`^(?:-u[ \t]*|--user(?:[ \t]+|=))["']?([^\s:"'@\[\]]*):([^\s"']*)`)

// scanCurlUser finds `curl … -u user:password` (and --user) and returns the
// password spans; with no password (`-u sk_live_…:`, as Stripe documents an
// API key as the user) the user when it looks like a token. -u means a user
// only after curl on the same line.
func scanCurlUser(s string) [][2]int {
	var spans [][2]int
	curl := newTriggerFinder(s, []string{"curl"}, false)
	flags := newTriggerFinder(s, []string{"-u", "--user"}, false)
	lineStart, scanned := 0, 0 // s[lineStart:scanned] holds no newline
	lastCurl, curlPos := -1, 0
	for pos := 0; ; {
		at, _ := flags.next(pos)
		if at < 0 {
			break
		}
		pos = at + 1
		for ; scanned < at; scanned++ {
			if s[scanned] == '\n' {
				lineStart = scanned + 1
			}
		}
		for {
			c, _ := curl.next(curlPos)
			if c < 0 || c >= at {
				break
			}
			if wholeWord(s, c, 4) {
				lastCurl = c
			}
			curlPos = c + 1
		}
		if at == 0 || s[at-1] != ' ' && s[at-1] != '\t' {
			continue
		}
		if lastCurl < lineStart {
			continue
		}
		m := curlUserRE.get().FindStringSubmatchIndex(s[at:windowEnd(s, at+defaultWindow)])
		if m == nil {
			continue
		}
		a, b := at+m[4], at+m[5]
		if a == b {
			if a, b = at+m[2], at+m[3]; !tokenLike(s[a:b]) || !secretValue(s[a:b], false) {
				continue
			}
		}
		if v := s[a:b]; strings.Contains(v, RedactedPrefix) || isPlaceholder(v) || isMasked(v) {
			continue
		}
		spans = append(spans, [2]int{a, b})
		pos = b
	}
	return spans
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

// scanURLPasswords returns the passwords of scheme://user:password@host
// URLs. A password may hold '/' and a raw '@' (people write them unescaped):
// it runs to the first '@' followed by a host name with a dot, localhost, an
// IP address or a bracketed IPv6 address, and then by the end of the URL or
// ':', '/', '?' or '#'; failing that, to the last '@' followed by any host.
// "host:8080/path?mail=a@b.com" is a port and a path, not a password. A
// password of any length counts, but not a placeholder ($PASS, ${PASS},
// <password>, ****) nor an earlier replacement.
func scanURLPasswords(s string) [][2]int {
	var spans [][2]int
	f := newTriggerFinder(s, []string{"://"}, false)
	for pos := 0; ; {
		at, _ := f.next(pos)
		if at < 0 {
			break
		}
		pos = at + 1
		u := at + 3
		for u < len(s) && !strings.ContainsRune(" \t\r\n:/?#@\"'<>[]`", rune(s[u])) {
			u++
		}
		if u >= len(s) || s[u] != ':' {
			continue
		}
		a := u + 1
		end := a
		for end < len(s) && end-a < urlPasswordMax && !strings.ContainsRune(" \t\r\n\"'<>`", rune(s[end])) {
			end++
		}
		b := passwordEnd(s, a, end)
		if b <= a {
			continue
		}
		v := s[a:b]
		if strings.Contains(v, RedactedPrefix) || isPlaceholder(v) || isMasked(v) || portAndPath(v) {
			continue
		}
		spans = append(spans, [2]int{a, b})
		pos = b
	}
	return spans
}

// urlPasswordMax bounds the bytes searched for the '@' that ends a URL
// password.
const urlPasswordMax = 1024

// passwordEnd picks the '@' that ends a URL password in s[a:end], or returns
// -1.
func passwordEnd(s string, a, end int) int {
	last := -1
	for i := a; i < end; i++ {
		if s[i] != '@' {
			continue
		}
		h := i + 1
		for h < end && !strings.ContainsRune(":/?#@", rune(s[h])) {
			h++
		}
		if h == i+1 && h < end || h < end && s[h] == '@' {
			continue // no host, or the '@' is the password's own
		}
		if hostLike(s[i+1 : h]) {
			return i
		}
		last = i
	}
	return last
}

// hostLike reports a host name with a dot, localhost, or a bracketed IPv6
// address.
func hostLike(h string) bool {
	return strings.Contains(h, ".") && !strings.HasSuffix(h, ".") || h == "localhost" || strings.HasPrefix(h, "[")
}

// portAndPath reports "8080/path…": what follows host: in a URL without
// credentials.
func portAndPath(v string) bool {
	i := 0
	for i < len(v) && isDigitByte(v[i]) {
		i++
	}
	return i > 0 && i <= 5 && i < len(v) && v[i] == '/'
}

// Private key blocks run from a BEGIN line to its END line, or to the end of
// the text when the block was cut off. They go before gitleaks' rules, whose
// private-key rule needs the END line and 64 characters before it (short of
// them it runs on into the next block and leaves that one's key). They are found by hand (two literal
// searches) rather than with one lazy pattern, which would cost a full scan
// per BEGIN line.
var (
	privateKeyBegin = lazyRE(`^-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----`)
	privateKeyEnd   = lazyRE(`^-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----`)
)

func redactPrivateKeys(s string) (string, int) {
	var b strings.Builder
	n, last := 0, 0
	for pos := 0; ; {
		i := strings.Index(s[pos:], "-----BEGIN")
		if i < 0 {
			break
		}
		start := pos + i
		h := privateKeyBegin.get().FindStringIndex(s[start:min(len(s), start+80)])
		if h == nil {
			pos = start + 1
			continue
		}
		end := len(s)
		for p := start + h[1]; ; {
			j := strings.Index(s[p:], "-----END")
			if j < 0 {
				break
			}
			if e := privateKeyEnd.get().FindStringIndex(s[p+j : min(len(s), p+j+80)]); e != nil {
				end = p + j + e[1]
				break
			}
			p += j + 1
		}
		b.WriteString(s[last:start])
		b.WriteString(redactMarker(KindPrivateKey))
		n++
		last, pos = end, end
	}
	if n == 0 {
		return s, 0
	}
	b.WriteString(s[last:])
	return b.String(), n
}

// Assignments: a name that says KEY, TOKEN, SECRET, PASSWORD, PASSWD (and a
// few close relatives), a separator, a value. They are parsed by hand from
// each occurrence of a trigger word, which is both faster than a pattern
// that must try every identifier and lets the name be judged by its parts.

var assignmentWords = []string{"key", "token", "secret", "pass", "pwd"}

// scanAssignments returns the value spans of secret assignments in s.
func scanAssignments(s string) [][2]int {
	var spans [][2]int
	f := newTriggerFinder(s, assignmentWords, true)
	for pos := 0; pos < len(s); {
		at, wl := f.next(pos)
		if at < 0 {
			break
		}
		ns := at
		for ns > pos && isNameByte(s[ns-1]) {
			ns--
		}
		ne := at + wl
		for ne < len(s) && isNameByte(s[ne]) {
			ne++
		}
		pos = ne
		if ns > 0 && isNameByte(s[ns-1]) {
			continue // the name began before pos: already judged
		}
		if inMarker(s, ns) {
			continue // "[REDACTED:aws-access-key]" names nothing
		}
		a, b, ok := assignmentValue(s, ns, ne)
		if !ok {
			continue
		}
		spans = append(spans, [2]int{a, b})
		pos = b
	}
	return spans
}

// assignmentValue judges the name line[ns:ne] and, when it is a secret name
// followed by a separator and a secret-looking value, returns the value's span.
func assignmentValue(line string, ns, ne int) (int, int, bool) {
	name := line[ns:ne]
	if ns > 0 && (line[ns-1] == '$' || line[ns-1] == '{' && ns > 1 && line[ns-2] == '$') {
		return 0, 0, false // $TOKEN, ${TOKEN:-…}: a reference, not an assignment
	}
	dashes := 0
	for dashes < len(name) && name[dashes] == '-' {
		dashes++
	}
	if dashes > 2 || len(name) > 128 {
		return 0, 0, false
	}
	bare := name[dashes:]
	if bare == "" || !(isAlphaByte(bare[0]) || bare[0] == '_') || !secretName(bare) {
		return 0, 0, false
	}
	bareKey := strings.EqualFold(bare, "key")
	if bareKey && notSecretKeyQualifier[strings.ToLower(wordBefore(line, ns))] {
		return 0, 0, false // "primary key: customer_id", "public key = …"
	}
	if dashes == 0 && strings.EqualFold(bare, "pass") {
		return 0, 0, false // "--- PASS: TestX": test runners, not DB_PASS or --pass
	}
	// A bare "key" is a dictionary key, a React key, a cookie name or an S3
	// object key far more often than a secret: its value must look like a
	// token.
	quotedOK := func(v string) bool { return secretValue(v, true) && (!bareKey || tokenLike(v)) }
	j := ne
	if strings.HasPrefix(line[j:], `\"`) {
		j += 2 // "{\"password\": …}" inside a quoted command
	} else if j < len(line) && (line[j] == '"' || line[j] == '\'') {
		j++
	}
	if j < len(line) && line[j] == ']' {
		j++
	}
	k := skipBlanks(line, j)
	colon, spaced := false, false
	// shell: NAME=value with nothing around '=', whose value is a literal
	// even when it has dots (VAULT_TOKEN=hvs.…, PASSWORD=Autumn.Leaves2024).
	shell := k == j && k+1 < len(line) && line[k] == '=' && line[k+1] != ' ' && line[k+1] != '\t'
	switch {
	case strings.HasPrefix(line[k:], ":="), strings.HasPrefix(line[k:], "=>"):
		k += 2
	case strings.HasPrefix(line[k:], "%3D"), strings.HasPrefix(line[k:], "%3d"):
		k += 3 // password%3D… in an encoded query
		shell = true
	case k < len(line) && line[k] == '=':
		if k+1 < len(line) && line[k+1] == '=' {
			return 0, 0, false // a comparison
		}
		k++
	case k < len(line) && line[k] == ':':
		if k+1 < len(line) && line[k+1] == ':' {
			return 0, 0, false // Token::Kind
		}
		k++
		colon = true
	case dashes > 0 && k > j:
		spaced = true // --password value
	default:
		return 0, 0, false
	}
	v := skipBlanks(line, k)
	if v >= len(line) {
		return 0, 0, false
	}
	if strings.HasPrefix(line[v:], `\"`) {
		if end := strings.Index(line[v+2:], `\"`); end >= 0 && !strings.Contains(line[v+2:v+2+end], "\n") {
			a, b := v+2, v+2+end
			if !quotedOK(line[a:b]) {
				return 0, 0, false
			}
			return a, b, true
		}
		v += 2
	} else if q := line[v]; q == '"' || q == '\'' {
		if end, ok := closingQuote(line, v); ok {
			a, b := v+1, end
			if !quotedOK(line[a:b]) {
				return 0, 0, false
			}
			return a, b, true
		}
		v++ // an unclosed quote: judge what follows as a bare word
	}
	b, raw, code := unquotedEnd(line, v)
	val := line[v:b]
	if code || isPlaceholder(line[v:raw]) || val == "" || val[0] == '=' || val[0] == ':' || spaced && val[0] == '-' {
		return 0, 0, false
	}
	if !secretValue(val, false) || !shell && dottedIdent(val) && !randomPart(val) {
		return 0, 0, false
	}
	// A plain word (letters and _) is prose after a colon ("The secret:
	// understanding …") and an identifier in code (thread_key = tool_use_id,
	// _csrf_token: csrfToken); it counts only for an environment-style
	// upper-case name or a flag (PASSWORD=CorrectHorse, --password hunterhunter).
	if wordLike(val) && (colon || dashes == 0 && !upperName(bare)) || bareKey && !tokenLike(val) {
		return 0, 0, false
	}
	return v, b, true
}

// unquotedEnd returns where an unquoted value starting at line[v] ends, where
// it would end with its trailing separators, and whether it is code rather
// than a value. The value runs to a blank, a quote,
// a backtick, a literal \n, \r or \t, or a percent-encoded '&'; the
// separators ; , & | ( ) [ ] { } < > end it only where a new name=
// follows or nothing does ("abc;def123" and "p&ss(w)rd" are whole values),
// and trailing ones are not part of it. An identifier followed by '(' or
// '[' is code: getToken(), tokens[i], os.environ["KEY"].
func unquotedEnd(line string, v int) (int, int, bool) {
	id := v
	for id < len(line) && (isWordByte(line[id]) || line[id] == '.' || line[id] == '$') {
		id++
	}
	if id > v && id < len(line) && (line[id] == '(' || line[id] == '[') {
		return id, id, true
	}
	b := v
	for b < len(line) && b-v < maxUnquotedValue {
		c := line[b]
		if c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f' || c == '"' || c == '\'' || c == '`' {
			break
		}
		if c == '\\' && b+1 < len(line) && (line[b+1] == 'n' || line[b+1] == 'r' || line[b+1] == 't') {
			break
		}
		if c == '%' && (strings.HasPrefix(line[b:], "%26") || strings.HasPrefix(line[b:], "%20")) {
			break
		}
		if isValueStop(c) && newAssignment(line, b+1) {
			break
		}
		b++
	}
	raw := b
	for b > v && strings.IndexByte(";,&|()[]{}<>.:", line[b-1]) >= 0 {
		b--
	}
	return b, raw, false
}

// maxUnquotedValue bounds an unquoted value.
const maxUnquotedValue = 1024

// newAssignment reports a name and '=' at line[i]: the next pair of a query
// string, a cookie or a list of settings.
func newAssignment(line string, i int) bool {
	j := i
	for j < len(line) && (isWordByte(line[j]) || line[j] == '-' || line[j] == '.') {
		j++
	}
	return j > i && j < len(line) && line[j] == '='
}

// randomPart reports a dotted value one part of which is long and mixes
// letters and digits (hvs.CAESI…, SG.….…, dp.st.prd.…): a token, not the
// reference to one.
func randomPart(v string) bool {
	for _, p := range strings.Split(v, ".") {
		if len(p) >= 16 && tokenLike(p) {
			return true
		}
	}
	return false
}

// tokenLike reports a value drawn from a token alphabet (letters, digits,
// _ + / = -) holding both a letter and a digit: a8f5f167f44f4964e6c9 is one,
// "completed", user:123 and uploads/2024/photo.jpg are not.
func tokenLike(v string) bool {
	letter, digit := false, false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case isAlphaByte(c):
			letter = true
		case isDigitByte(c):
			digit = true
		case c == '_' || c == '+' || c == '/' || c == '=' || c == '-':
		default:
			return false
		}
	}
	return letter && digit
}

// wordLike reports a value made only of letters and underscores.
func wordLike(v string) bool {
	for _, r := range v {
		if r != '_' && !unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

// upperName reports an environment-style name: no lower-case letter.
func upperName(name string) bool {
	for i := 0; i < len(name); i++ {
		if isLowerByte(name[i]) {
			return false
		}
	}
	return true
}

// wordBefore returns the word that ends one blank before line[i].
func wordBefore(line string, i int) string {
	j := i
	for j > 0 && (line[j-1] == ' ' || line[j-1] == '\t') {
		j--
	}
	if j == i {
		return ""
	}
	k := j
	for k > 0 && isAlnumByte(line[k-1]) {
		k--
	}
	return line[k:j]
}

func closingQuote(line string, open int) (int, bool) {
	q := line[open]
	for i := open + 1; i < len(line); i++ {
		switch line[i] {
		case '\\':
			if q == '"' {
				i++
			}
		case '\n':
			return 0, false // a value never runs across lines
		case q:
			return i, true
		}
	}
	return 0, false
}

// secretValue says whether a value in a secret-looking place is a secret: at
// least MinSecretLen characters, not a placeholder, a mask, a path or an
// earlier replacement. A quoted value may hold spaces (a passphrase).
func secretValue(v string, quoted bool) bool {
	if utf8.RuneCountInString(v) < MinSecretLen {
		return false
	}
	if strings.Contains(v, RedactedPrefix) || isPlaceholder(v) || isMasked(v) || pathLike(v) {
		return false
	}
	if !quoted {
		switch strings.ToLower(v) {
		case "undefined", "required", "optional", "disabled", "enabled":
			return false
		}
	}
	return true
}

// isPlaceholder reports values that stand for a secret without being one:
// shell and PowerShell references ($TOKEN, ${API_KEY}, $(cat f),
// $env:API_KEY), <your-key>, {{ .token }}, %API_KEY%, your-api-key.
func isPlaceholder(v string) bool {
	switch {
	case v == "":
		return true
	case v[0] == '$':
		return reference(v[1:])
	case v[0] == '<' && v[len(v)-1] == '>':
		return true
	case strings.HasPrefix(v, "{{"):
		return true
	case len(v) > 2 && v[0] == '%' && v[len(v)-1] == '%':
		return true
	}
	l := strings.ToLower(v)
	return strings.HasPrefix(l, "your-") || strings.HasPrefix(l, "your_") || strings.HasPrefix(l, "your ")
}

// reference reports what follows '$' in a shell or PowerShell reference:
// {…}, (…), env:NAME, a digit, or a whole name that is not a password in
// disguise — one case (TOKEN, api_key) or, in mixed case, no digit
// ($ApiKey). "$ecretP4ss!" and "$Passw0rd" are values.
func reference(r string) bool {
	switch {
	case r == "":
		return false
	case r[0] == '{' || r[0] == '(' || isDigitByte(r[0]):
		return true
	case strings.HasPrefix(strings.ToLower(r), "env:"):
		r = r[4:]
	}
	upper, lower, digit := false, false, false
	for i := 0; i < len(r); i++ {
		switch c := r[i]; {
		case isUpperByte(c):
			upper = true
		case isLowerByte(c):
			lower = true
		case isDigitByte(c):
			digit = true
		case c != '_':
			return false
		}
	}
	return r != "" && !(upper && lower && digit)
}

// isMasked reports a value mostly made of mask characters (x, X, *, •):
// sk-xxxxxxxxxxxxxxxxxxxx, ********, AKIAXXXXXXXXXXXXXXXX.
func isMasked(v string) bool {
	mask, other := 0, 0
	for _, r := range v {
		switch {
		case r == 'x' || r == 'X' || r == '*' || r == '•':
			mask++
		case r < utf8.RuneSelf && isAlnumByte(byte(r)):
			other++
		}
	}
	return mask >= 4 && mask >= other
}

// pathLike reports file paths (/etc/ssl/private/server.key, ~/.ssh/id_rsa,
// C:\keys\prod.pem): the value of --key or KEY_FILE-like names is often one.
// A value with '+' or '=' is base64, not a path.
func pathLike(v string) bool {
	if strings.ContainsAny(v, "+= ") {
		return false
	}
	switch {
	case strings.HasPrefix(v, "~/"), strings.HasPrefix(v, "./"), strings.HasPrefix(v, "../"),
		strings.HasPrefix(v, `\\`), strings.HasPrefix(v, `.\`):
		return true
	case len(v) > 2 && isAlphaByte(v[0]) && v[1] == ':' && (v[2] == '\\' || v[2] == '/'):
		return true
	case v[0] == '/':
		return strings.Count(v, "/") >= 2 || strings.Contains(v, ".")
	}
	return false
}

// dottedIdent reports code references such as os.environ or
// process.env.API_KEY, and file names such as server.key.
func dottedIdent(v string) bool {
	parts := strings.Split(v, ".")
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		if p == "" || !(isAlphaByte(p[0]) || p[0] == '_' || p[0] == '$') {
			return false
		}
		for i := 1; i < len(p); i++ {
			if c := p[i]; !(isAlnumByte(c) || c == '_' || c == '$') {
				return false
			}
		}
	}
	return true
}

// secretName reports whether an identifier names a secret: one of its parts
// (split at _ - . and camelCase) is KEY, TOKEN, SECRET, PASSWORD, PASSWD,
// PASSPHRASE, PASS or PWD (or a compound such as apikey, authtoken,
// dbpassword), and every part after it only qualifies the value (_BASE,
// _VALUE, _PROD, _2). TOKEN_URL, KEY_FILE, API_KEY_ID, SECRET_NAME and
// password_min_length name something else; public_key, primary_key and
// sort_key are not secrets; tokens, keys are counts or collections.
func secretName(name string) bool {
	if l := strings.ToLower(name); l == "pwd" || l == "oldpwd" {
		return false // the shell's working directory
	}
	parts := nameParts(name)
	last := -1
	for i, p := range parts {
		if secretWord(p) {
			if (p == "key") && i > 0 && notSecretKeyQualifier[parts[i-1]] {
				continue
			}
			last = i
		}
	}
	if last < 0 {
		return false
	}
	for _, p := range parts[last+1:] {
		if p != "" && !qualifierAfterSecret[p] {
			return false
		}
	}
	return true
}

// nameParts splits an identifier into lower-case parts at _ - . and camelCase
// boundaries, dropping trailing digits (key2 → key; a part of digits only
// becomes "").
func nameParts(name string) []string {
	var parts []string
	start := 0
	flush := func(end int) {
		if end > start {
			p := strings.ToLower(name[start:end])
			parts = append(parts, strings.TrimRight(p, "0123456789"))
		}
		start = end
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c == '_' || c == '-' || c == '.' {
			flush(i)
			start = i + 1
			continue
		}
		if isUpperByte(c) && i > start {
			prev := name[i-1]
			if isLowerByte(prev) || isDigitByte(prev) ||
				isUpperByte(prev) && i+1 < len(name) && isLowerByte(name[i+1]) {
				flush(i)
			}
		}
	}
	flush(len(name))
	return parts
}

func secretWord(p string) bool {
	switch p {
	case "key", "token", "secret", "password", "passwd", "passphrase", "pass", "pwd":
		return true
	}
	for _, suffix := range []string{"token", "secret", "password", "passwd", "passphrase"} {
		if strings.HasSuffix(p, suffix) {
			return true
		}
	}
	return compoundKeys[p]
}

var compoundKeys = map[string]bool{
	"apikey": true, "accesskey": true, "secretkey": true, "privatekey": true, "authkey": true,
	"signingkey": true, "masterkey": true, "encryptionkey": true, "licensekey": true, "serverkey": true,
	"appkey": true, "clientkey": true, "sessionkey": true, "hmackey": true, "consumerkey": true,
	"servicekey": true, "adminkey": true, "userkey": true, "webhookkey": true, "deploykey": true,
}

// notSecretKeyQualifier: KEY after these words names a public or database key.
var notSecretKeyQualifier = map[string]bool{
	"public": true, "pub": true, "primary": true, "foreign": true, "sort": true, "partition": true,
	"cache": true, "idempotency": true, "range": true, "hash": true, "lookup": true, "map": true,
	"dedup": true, "dedupe": true, "unique": true, "composite": true, "row": true, "object": true,
	"translation": true, "i18n": true, "message": true, "msg": true, "host": true, "known": true,
	"routing": true, "shard": true, "group": true, "index": true, "dict": true, "react": true,
}

// qualifierAfterSecret: parts that may follow the secret word and still name
// the secret itself (SECRET_KEY_BASE, TOKEN_VALUE, PASSWORD_PROD, API_KEY_2).
var qualifierAfterSecret = map[string]bool{
	"value": true, "val": true, "str": true, "string": true, "text": true, "b": true, "base": true,
	"hex": true, "raw": true, "plain": true, "plaintext": true, "data": true, "bytes": true,
	"enc": true, "encoded": true, "prod": true, "production": true, "dev": true, "development": true,
	"staging": true, "stage": true, "test": true, "testing": true, "live": true, "old": true,
	"new": true, "current": true, "next": true, "prev": true, "previous": true, "primary": true,
	"secondary": true, "backup": true, "override": true, "local": true, "ci": true,
	"confirm": true, "confirmation": true, "repeat": true, "again": true, "key": true,
	"secret": true, "token": true,
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
