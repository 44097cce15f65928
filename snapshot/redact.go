package snapshot

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/compact-guard/compact-guard/transcript"
)

// Redaction kinds: the word inside [REDACTED:<kind>].
const (
	KindAnthropic      = "anthropic"
	KindOpenAI         = "openai"
	KindGitHub         = "github"
	KindGitLab         = "gitlab"
	KindAWSAccessKey   = "aws-access-key"
	KindAWSSecret      = "aws-secret"
	KindSlack          = "slack"
	KindGoogleAPIKey   = "google-api-key"
	KindStripe         = "stripe"
	KindNPM            = "npm"
	KindPrivateKey     = "private-key"
	KindJWT            = "jwt"
	KindAuthorization  = "authorization"
	KindURLCredentials = "url-credentials"
	KindAssignment     = "assignment"
)

// RedactedPrefix starts every replacement; a value already holding it is never
// redacted again, which keeps Redact idempotent.
const RedactedPrefix = "[REDACTED:"

// MinSecretLen is the shortest value (in characters) the generic rules
// (assignments, Authorization headers) treat as a secret: shorter values are
// placeholders or flags far more often than credentials.
const MinSecretLen = 8

// MaxRedactionGrowth bounds how many bytes one replacement can add to a
// text: the longest marker (every rule replaces at least one byte).
var MaxRedactionGrowth = len(marker(KindURLCredentials))

func marker(kind string) string { return RedactedPrefix + kind + "]" }

// Redact replaces secrets in s with [REDACTED:<kind>] and returns the new text
// and the number of replacements. It is best effort (specs/security.md lists
// what it covers), linear in len(s), and idempotent: Redact of its own output
// changes nothing.
func Redact(s string) (string, int) {
	if len(s) < 8 {
		return s, 0
	}
	n := 0
	if strings.Contains(s, "PRIVATE KEY") {
		var k int
		s, k = redactPrivateKeys(s)
		n += k
	}
	lower := asciiLower(s)
	var active []*rule
	for _, r := range lineRules {
		if r.present(s, lower) {
			active = append(active, r)
		}
	}
	if len(active) == 0 {
		return s, n
	}
	// Secrets other than private keys never span lines, so each line is
	// handled alone: the costly patterns then only ever see lines that hold
	// one of their trigger words.
	var b strings.Builder
	last := 0 // s[:last] is already in b, or nothing changed yet
	for start := 0; start < len(s); {
		end := strings.IndexByte(s[start:], '\n')
		if end < 0 {
			end = len(s)
		} else {
			end += start
		}
		out, k := redactLine(s[start:end], lower[start:end], active)
		if k > 0 {
			if b.Len() == 0 {
				b.Grow(len(s) + 64)
			}
			b.WriteString(s[last:start])
			b.WriteString(out)
			last = end
			n += k
		}
		start = end + 1
	}
	if last == 0 {
		return s, n
	}
	b.WriteString(s[last:])
	return b.String(), n
}

// maxPasses bounds how often a line is redacted again. A replacement can put
// a boundary where there was none (`]ghp_…` after a fixed-length key), so a
// second pass may find more; in practice the second pass finds nothing.
const maxPasses = 4

func redactLine(line, lower string, active []*rule) (string, int) {
	total := 0
	for pass := 0; pass < maxPasses; pass++ {
		n := 0
		for _, r := range active {
			if !r.present(line, lower) {
				continue
			}
			out, k := r.apply(line, lower)
			if k > 0 {
				line, n = out, n+k
				lower = asciiLower(line)
			}
		}
		if n == 0 {
			break
		}
		total += n
	}
	return line, total
}

// RedactRecord redacts, in place, every free-text field of a record: prompts,
// custom instructions, commands with their descriptions and error lines,
// failures, the plan, todo and task subjects, the git subject and error, the
// payload error and warnings. Identifiers and paths (session id, names, file
// paths, cwd, branch) are left alone. It returns the number of replacements.
func RedactRecord(r *Record) int {
	if r == nil {
		return 0
	}
	n := 0
	red := func(p *string) {
		if p == nil {
			return
		}
		out, k := Redact(*p)
		*p = out
		n += k
	}
	red(r.CustomInstructions)
	red(&r.PayloadError)
	for i := range r.Prompts {
		red(&r.Prompts[i].Text)
	}
	for i := range r.Commands {
		c := &r.Commands[i]
		red(&c.Command)
		red(&c.Description)
		red(&c.ErrorLine)
	}
	for _, tasks := range [][]transcript.Task{r.Todos, r.Tasks} {
		for i := range tasks {
			red(&tasks[i].Subject)
			red(&tasks[i].ActiveForm)
		}
	}
	for i := range r.Failures {
		red(&r.Failures[i].Input)
		red(&r.Failures[i].Error)
	}
	if r.Plan != nil {
		red(&r.Plan.Text)
	}
	if r.Git != nil {
		red(&r.Git.Subject)
		red(&r.Git.Error)
	}
	for i := range r.Warnings {
		red(&r.Warnings[i])
	}
	return n
}

// rule is one kind of secret found with a regular expression. The patterns
// start with a literal where they can (Go's regexp then skips ahead with a
// substring search) and leave boundary checks to span, because Go has no
// look-behind.
type rule struct {
	kind string
	re   *regexp.Regexp
	// triggers: the rule runs only on text holding one of them (in the
	// lower-cased text when fold is set).
	triggers []string
	fold     bool
	// span picks what to replace in match m (indexes into line), or false to
	// leave the match alone. Nil replaces the whole match after a left
	// boundary check.
	span func(line string, m []int) (int, int, bool)
	// scan replaces re and span for rules parsed by hand.
	scan func(line, lower string) [][2]int
}

func (r *rule) present(s, lower string) bool {
	in := s
	if r.fold {
		in = lower
	}
	for _, t := range r.triggers {
		if strings.Contains(in, t) {
			return true
		}
	}
	return false
}

// apply replaces every accepted match in line.
func (r *rule) apply(line, lower string) (string, int) {
	var spans [][2]int
	if r.scan != nil {
		spans = r.scan(line, lower)
	} else {
		for _, m := range r.re.FindAllStringSubmatchIndex(line, -1) {
			var a, b int
			var ok bool
			if r.span != nil {
				a, b, ok = r.span(line, m)
			} else {
				a, b, ok = tokenSpan(line, m)
			}
			if ok && a < b {
				spans = append(spans, [2]int{a, b})
			}
		}
	}
	if len(spans) == 0 {
		return line, 0
	}
	mk := marker(r.kind)
	var b strings.Builder
	b.Grow(len(line) + len(spans)*len(mk))
	last := 0
	for _, sp := range spans {
		b.WriteString(line[last:sp[0]])
		b.WriteString(mk)
		last = sp[1]
	}
	b.WriteString(line[last:])
	return b.String(), len(spans)
}

// tokenSpan accepts a provider token that does not start in the middle of a
// word ("task-ant-…" is not "sk-ant-…") and is not a mask such as
// ghp_xxxxxxxx….
func tokenSpan(line string, m []int) (int, int, bool) {
	a, b := m[0], m[1]
	if a > 0 && isWordByte(line[a-1]) {
		return 0, 0, false
	}
	if masked(line[a:b]) {
		return 0, 0, false
	}
	return a, b, true
}

// tokenSpanEnd is tokenSpan for fixed-length tokens, which must also end
// where the word ends.
func tokenSpanEnd(line string, m []int) (int, int, bool) {
	if m[1] < len(line) && isAlnumByte(line[m[1]]) {
		return 0, 0, false
	}
	return tokenSpan(line, m)
}

// groupSpan replaces submatch g when it holds a value that looks like a
// secret (valueOK).
func groupSpan(g int) func(string, []int) (int, int, bool) {
	return func(line string, m []int) (int, int, bool) {
		a, b := m[2*g], m[2*g+1]
		if a < 0 || !secretValue(line[a:b], true) {
			return 0, 0, false
		}
		return a, b, true
	}
}

func tok(kind, pattern string, triggers ...string) *rule {
	return &rule{kind: kind, re: regexp.MustCompile(pattern), triggers: triggers}
}

// lineRules run in this order on each line: provider formats first (their
// kind is the most telling), then the generic shapes, which skip values that
// already hold a marker.
var lineRules = []*rule{
	tok(KindJWT, `eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*`, "eyJ"),
	tok(KindAnthropic, `sk-ant-[A-Za-z0-9_-]{16,}`, "sk-ant-"),
	tok(KindOpenAI, `sk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_-]{16,}|[A-Za-z0-9]{20,})`, "sk-"),
	tok(KindGitHub, `gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}`,
		"ghp_", "gho_", "ghs_", "ghu_", "ghr_", "github_pat_"),
	tok(KindGitLab, `gl(?:pat|dt|rt|ptt|soat)-[A-Za-z0-9_-]{20,}`, "glpat-", "gldt-", "glrt-", "glptt-", "glsoat-"),
	func() *rule {
		r := tok(KindAWSAccessKey, `(?:AKIA|ASIA)[A-Z0-9]{16}`, "AKIA", "ASIA")
		r.span = tokenSpanEnd
		return r
	}(),
	{
		kind: KindAWSSecret,
		re: regexp.MustCompile(`(?i)(?:aws_?)?secret_?access_?key["']?\]?(?:[ \t]*[:=][ \t]*|[ \t]+)["']?` +
			`([A-Za-z0-9/+]{40})`),
		triggers: []string{"secret"}, fold: true,
		span: func(line string, m []int) (int, int, bool) {
			a, b := m[2], m[3]
			if b < len(line) && strings.IndexByte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/+", line[b]) >= 0 {
				return 0, 0, false
			}
			if masked(line[a:b]) {
				return 0, 0, false
			}
			return a, b, true
		},
	},
	tok(KindSlack, `xox[abposr]-[0-9]+-[A-Za-z0-9-]{10,}`, "xox"),
	tok(KindGoogleAPIKey, `AIza[0-9A-Za-z_-]{35,}`, "AIza"),
	tok(KindStripe, `(?:[sr]k_(?:live|test)|whsec)_[A-Za-z0-9]{16,}`, "k_live_", "k_test_", "whsec_"),
	tok(KindNPM, `npm_[A-Za-z0-9]{36,}`, "npm_"),
	{
		kind: KindAuthorization,
		re: regexp.MustCompile(`(?i)authorization["']?\]?[ \t]*[:=][ \t]*["']?` +
			`(?:(?:bearer|basic|token|bot)[ \t]+)?([^\s"'<>,;\\]+)`),
		triggers: []string{"authorization"}, fold: true,
		span: groupSpan(1),
	},
	{
		// A bare "Bearer <token>" outside a header; the token must hold a
		// digit so that prose ("bearer authentication") survives.
		kind:     KindAuthorization,
		re:       regexp.MustCompile(`(?i)\bbearer[ \t]+([A-Za-z0-9._~+/=-]{16,})`),
		triggers: []string{"bearer"}, fold: true,
		span: func(line string, m []int) (int, int, bool) {
			a, b := m[2], m[3]
			v := line[a:b]
			if !strings.ContainsAny(v, "0123456789") || !secretValue(v, false) {
				return 0, 0, false
			}
			return a, b, true
		},
	},
	{
		// curl -u user:password (and --user): the password.
		kind: KindAuthorization,
		re: regexp.MustCompile(`\bcurl\b[^\n]*?[ \t](?:-u[ \t]*|--user(?:[ \t]+|=))["']?` +
			`[^\s:"'@\[\]]*:([^\s"']+)`),
		triggers: []string{"curl"},
		span:     urlPassword(1),
	},
	{
		// scheme://user:password@host: only the password goes.
		kind:     KindURLCredentials,
		re:       regexp.MustCompile(`://[^\s:/?#@"'<>\[\]]*:([^\s/@"'<>]+)@`),
		triggers: []string{"://"},
		span:     urlPassword(1),
	},
	{
		kind:     KindAssignment,
		triggers: assignmentWords, fold: true,
		scan: scanAssignments,
	},
}

// urlPassword accepts a password of any length that is not a placeholder
// ($PASS, ${PASS}, <password>, ****).
func urlPassword(g int) func(string, []int) (int, int, bool) {
	return func(line string, m []int) (int, int, bool) {
		a, b := m[2*g], m[2*g+1]
		v := line[a:b]
		if strings.Contains(v, RedactedPrefix) || placeholder(v) || masked(v) {
			return 0, 0, false
		}
		return a, b, true
	}
}

// privateKeyRE takes a PEM or PGP private key block to its END line, or to
// the end of the text when the block is cut off.
var privateKeyRE = regexp.MustCompile(`-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----(?s:.*?)` +
	`(?:-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----|\z)`)

func redactPrivateKeys(s string) (string, int) {
	n := 0
	out := privateKeyRE.ReplaceAllStringFunc(s, func(string) string {
		n++
		return marker(KindPrivateKey)
	})
	return out, n
}

// Assignments: a name that says KEY, TOKEN, SECRET, PASSWORD, PASSWD (and a
// few close relatives), a separator, a value. They are parsed by hand from
// each occurrence of a trigger word, which is both faster than a pattern
// that must try every identifier and lets the name be judged by its parts.

var assignmentWords = []string{"key", "token", "secret", "pass", "pwd"}

// scanAssignments returns the value spans of secret assignments in line.
func scanAssignments(line, lower string) [][2]int {
	var spans [][2]int
	// next[i] caches where assignmentWords[i] next occurs, so that each word
	// is searched for once per occurrence, not once per step.
	next := make([]int, len(assignmentWords))
	for i := range next {
		next[i] = -2
	}
	pos := 0
	for pos < len(line) {
		at, wl := -1, 0
		for i, w := range assignmentWords {
			if next[i] != -1 && next[i] < pos {
				if j := strings.Index(lower[pos:], w); j >= 0 {
					next[i] = pos + j
				} else {
					next[i] = -1
				}
			}
			if next[i] >= 0 && (at < 0 || next[i] < at) {
				at, wl = next[i], len(w)
			}
		}
		if at < 0 {
			break
		}
		ns := at
		for ns > pos && isNameByte(line[ns-1]) {
			ns--
		}
		ne := at + wl
		for ne < len(line) && isNameByte(line[ne]) {
			ne++
		}
		pos = ne
		if ns > 0 && isNameByte(line[ns-1]) {
			continue // the name began before pos: already judged
		}
		a, b, ok := assignmentValue(line, ns, ne)
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
	if strings.EqualFold(bare, "key") && notSecretKeyQualifier[strings.ToLower(wordBefore(line, ns))] {
		return 0, 0, false // "primary key: customer_id", "public key = …"
	}
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
	switch {
	case strings.HasPrefix(line[k:], ":="), strings.HasPrefix(line[k:], "=>"):
		k += 2
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
		if end := strings.Index(line[v+2:], `\"`); end >= 0 {
			a, b := v+2, v+2+end
			if !secretValue(line[a:b], true) {
				return 0, 0, false
			}
			return a, b, true
		}
		v += 2
	} else if q := line[v]; q == '"' || q == '\'' {
		if end, ok := closingQuote(line, v); ok {
			a, b := v+1, end
			if !secretValue(line[a:b], true) {
				return 0, 0, false
			}
			return a, b, true
		}
		v++ // an unclosed quote: judge what follows as a bare word
	}
	b := v
	for b < len(line) && !isValueStop(line[b]) {
		b++
	}
	val := line[v:b]
	if val == "" || val[0] == '=' || val[0] == ':' || spaced && val[0] == '-' {
		return 0, 0, false
	}
	if b < len(line) && (line[b] == '(' || line[b] == '[') {
		return 0, 0, false // getToken(), tokens[i]: code, not a value
	}
	if !secretValue(val, false) || dottedIdent(val) || colon && !randomLooking(val) {
		return 0, 0, false
	}
	return v, b, true
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
	if strings.Contains(v, RedactedPrefix) || placeholder(v) || masked(v) || pathLike(v) {
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

// placeholder reports values that stand for a secret without being one:
// shell and PowerShell references ($TOKEN, ${API_KEY}, $(cat f),
// $env:API_KEY), <your-key>, {{ .token }}, %API_KEY%, your-api-key.
func placeholder(v string) bool {
	switch {
	case v == "":
		return true
	case v[0] == '$':
		return true
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

// masked reports a value mostly made of mask characters (x, X, *, •):
// sk-xxxxxxxxxxxxxxxxxxxx, ********, AKIAXXXXXXXXXXXXXXXX.
func masked(v string) bool {
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

// randomLooking is asked of an unquoted value after a colon, where prose
// ("The key: understanding …") is common: it must hold a digit, a symbol or
// an upper-case letter after the first character.
func randomLooking(v string) bool {
	for i, r := range v {
		switch {
		case r >= '0' && r <= '9':
			return true
		case unicode.IsUpper(r) && i > 0:
			return true
		case !unicode.IsLetter(r):
			return true
		}
	}
	return false
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

// asciiLower lowers ASCII letters only, so that byte offsets stay the same.
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if isUpperByte(s[i]) {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if isUpperByte(b[j]) {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}
