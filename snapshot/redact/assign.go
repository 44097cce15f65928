package redact

import (
	"strings"
	"unicode"
)

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
	if bare == "" || !(isAlphaByte(bare[0]) || bare[0] == '_') {
		return 0, 0, false
	}
	// lead: the secret word is not last (TOKEN_GITHUB): the value must then
	// look like a token.
	lead := false
	if !secretName(bare) {
		if !leadingSecretName(bare, dashes > 0) {
			return 0, 0, false
		}
		lead = true
	}
	bareKey := bareKeyName(bare)
	if w := strings.ToLower(wordBefore(line, ns)); bareKey && (notSecretKeyQualifier[w] || w == "from" || w == "with") {
		// "primary key: customer_id", "public key = …", and CI caches'
		// "Cache restored from key: …", "saved with key: …".
		return 0, 0, false
	}
	if dashes == 0 && strings.EqualFold(bare, "pass") {
		return 0, 0, false // "--- PASS: TestX": test runners, not DB_PASS or --pass
	}
	chosen := passwordName(bare)
	// A bare "key" is a dictionary key, a React key, a cookie name or an S3
	// object key far more often than a secret: its value must look like a
	// token. A KEY or TOKEN is issued, hence random: a phrase of words
	// ("Reviewed-By", "dev_placeholder_key", "Build Bot") names something
	// instead.
	shapeOK := func(v string) bool {
		switch {
		case bareKey:
			return tokenLike(v)
		case lead:
			return tokenLike(v) || randomPart(v) && !strings.ContainsAny(v, " \t")
		}
		return true
	}
	quotedOK := func(v string) bool {
		return secretValue(v, true) && shapeOK(v) && (chosen || !phraseLike(v)) && !concatenation(v)
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
		if p := skipBlanks(line, v); p < len(line) && line[p] == '+' {
			return 0, 0, false // "secret: " + value: the quote closed a string
		}
	}
	b, raw, code := unquotedEnd(line, v)
	val := line[v:b]
	if code || isPlaceholder(line[v:raw]) || val == "" || val[0] == '=' || val[0] == ':' || spaced && val[0] == '-' {
		return 0, 0, false
	}
	if nameThenEquals(val) {
		return 0, 0, false // "secret: Staging=?", "--secret id=npmrc,src=…": a setting, not a value
	}
	// A YAML scalar: a password-like name's value that ends its line (or is
	// followed by the next key of a mapping written on one line, or a
	// comment) is the password, a single word and a short one included
	// (password: hunter).
	if colon && chosen && raw == b && yamlScalarEnd(line, raw) && yamlPassword(val, bare) {
		return v, b, true
	}
	if !secretValue(val, false) || !shell && dottedIdent(val) && !randomPart(val) {
		return 0, 0, false
	}
	// A plain word (letters and _) is prose after a colon ("The secret:
	// understanding …") and an identifier in code (thread_key = tool_use_id,
	// _csrf_token: csrfToken); it counts only for an environment-style
	// upper-case name or a flag (PASSWORD=CorrectHorse, --password hunterhunter).
	if wordLike(val) && (colon || dashes == 0 && !upperName(bare)) || !shapeOK(val) || !chosen && phraseLike(val) {
		return 0, 0, false
	}
	return v, b, true
}

// nameThenEquals reports a value that starts with a name of letters and
// '=' and something other than padding: a setting of its own (Staging=?,
// id=npmrc,src=…), not a secret. Base64's padding (dGVzdA==) is no name.
func nameThenEquals(v string) bool {
	i := 0
	for i < len(v) && (isAlphaByte(v[i]) || v[i] == '_' || v[i] == '-') {
		i++
	}
	return i > 0 && i+1 < len(v) && v[i] == '=' && v[i+1] != '='
}

// concatenation reports the code between two string literals that a quoted
// value's quotes really close: `"token=" + secret, "…"`.
func concatenation(v string) bool {
	t := strings.TrimSpace(v)
	return strings.HasPrefix(t, "+") || strings.HasSuffix(t, "+")
}

// yamlScalarEnd reports that a plain scalar ending at line[i] is the whole
// value: the text, the line or an escaped line (\n) ends there, or a
// comment follows, or, in a mapping flattened onto one line, the next key
// ("password: hunter port: 5432"); prose goes on with more words ("the
// password: see the docs"), and code with a ',' or '}' ({ password: pw },
// which the caller sees as separators after the value).
func yamlScalarEnd(line string, i int) bool {
	j := skipBlanks(line, i)
	if j >= len(line) || line[j] == '\n' || line[j] == '\r' || literalEscape(line, j) || line[j] == '"' {
		return true
	}
	if j > i && line[j] == '#' {
		return true
	}
	k := j
	for k < len(line) && (isWordByte(line[k]) || line[k] == '-' || line[k] == '.') {
		k++
	}
	return j > i && k > j && k < len(line) && line[k] == ':' && (k+1 == len(line) || line[k+1] == ' ' || line[k+1] == '\t' || line[k+1] == '\n')
}

// yamlPassword judges a scalar given to a password-like name: any value but
// an empty one, a placeholder, a mask, a path, an earlier replacement, YAML's
// booleans and nulls, the type names of annotated code (password: str,
// token: string), a word naming the field itself (password: Password,
// password: PasswordInput) and a capitalized word or words, which are
// labels (password: Passwort in a locale file) and type names (SecretStr).
func yamlPassword(v, name string) bool {
	if strings.Contains(v, RedactedPrefix) || isPlaceholder(v) || isMasked(v) || pathLike(v) ||
		dottedIdent(v) && !randomPart(v) {
		return false
	}
	l := strings.ToLower(v)
	if yamlNotAPassword[l] {
		return false
	}
	if wordLike(v) {
		parts := nameParts(name)
		if i := lastSecretWord(parts); i >= 0 && strings.Contains(l, parts[i]) {
			return false
		}
		if isUpperByte(v[0]) && strings.ToUpper(v) != v {
			return false
		}
	}
	return true
}

// yamlNotAPassword are scalars that are no password: YAML's booleans and
// nulls, and the names of types and of states.
var yamlNotAPassword = map[string]bool{
	"true": true, "false": true, "yes": true, "no": true, "on": true, "off": true, "null": true, "~": true,
	"none": true, "nil": true, "undefined": true, "required": true, "optional": true, "enabled": true,
	"disabled": true, "str": true, "string": true, "bytes": true, "int": true, "integer": true, "number": true,
	"float": true, "bool": true, "boolean": true, "any": true, "unknown": true, "object": true, "text": true,
	"char": true, "varchar": true, "secret": true, "hidden": true, "masked": true, "omitted": true,
	"empty": true, "unset": true, "redacted": true, "set": true, "missing": true, "invalid": true,
}

// phraseLike reports a value made of words (each in lower case, upper case
// or capitalized) and the separators _ - . / : and blanks, with no digit:
// "Reviewed-By", "dev_placeholder_key", "Build Bot", "sync/last-run".
// A random string of letters mixes the cases inside its runs.
func phraseLike(v string) bool {
	run := 0
	upper, lower := 0, 0
	lowerThenUpper := false
	for i := 0; i <= len(v); i++ {
		if i < len(v) && isAlphaByte(v[i]) {
			c := v[i]
			if isUpperByte(c) {
				if lower > 0 {
					lowerThenUpper = true
				}
				upper++
			} else {
				lower++
			}
			run++
			continue
		}
		if run > 0 && (lowerThenUpper || upper > 1 && lower > 0) {
			return false // hUnTeR, aBcD: not a word
		}
		run, upper, lower, lowerThenUpper = 0, 0, 0, false
		if i < len(v) && strings.IndexByte("_-./: ", v[i]) < 0 {
			return false
		}
	}
	return strings.IndexFunc(v, func(r rune) bool { return r < 128 && isAlphaByte(byte(r)) }) >= 0
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
