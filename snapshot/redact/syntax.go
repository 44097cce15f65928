package redact

import "strings"

// Secrets that a syntax marks rather than a name: the password of a
// connection string, of a .netrc entry, of openssl's pass: argument and of
// mysql's -p, and the default a shell or compose file gives a secret
// variable. Each is parsed by hand from its trigger, by the syntax's own
// grammar, and only the secret is replaced.

// connectionStringRule: the Pwd= or Password= attribute of an ODBC, ADO.NET
// or JDBC connection string: attributes `keyword=value` separated by ';'
// (Driver={…};Server=…;Uid=sa;Pwd=…;), a value in braces taking ';' and
// '}}' for '}'. The pair counts when a ';' joins it to another attribute,
// and so does a libpq connection string's password= after host=, port=,
// dbname= or user= (blanks between pairs). Any length: the grammar, not the
// value, says it is a password.
var connectionStringRule = &redactRule{kind: KindConnString, triggers: []string{"pwd", "password"}, fold: true,
	scan: scanConnectionStrings}

func scanConnectionStrings(s string) [][2]int {
	var spans [][2]int
	f := newTriggerFinder(s, []string{"pwd", "password"}, true)
	ends := stopScanner{s: s, stop: func(s string, i int) bool {
		return strings.IndexByte(";\"'`\r\n", s[i]) >= 0 || literalEscape(s, i)
	}}
	blanks := stopScanner{s: s, stop: func(s string, i int) bool { return s[i] == ' ' || s[i] == '\t' }}
	for pos := 0; ; {
		at, l := f.next(pos)
		if at < 0 {
			break
		}
		pos = at + 1
		if at > 0 && isNameByte(s[at-1]) || at+l < len(s) && isNameByte(s[at+l]) {
			continue // DB_PASSWORD=, pwdfile: another name
		}
		k := skipBlanks(s, at+l)
		if k >= len(s) || s[k] != '=' || k+1 < len(s) && s[k+1] == '=' {
			continue
		}
		a := skipBlanks(s, k+1)
		var b, next int
		if a < len(s) && s[a] == '{' {
			end, ok := bracedValueEnd(s, a)
			if !ok {
				continue
			}
			a, b, next = a+1, end, end+1
		} else {
			b = min(ends.next(a), a+maxUnquotedValue)
			if b >= len(s) || s[b] != ';' {
				// Not ended by ';': a blank ends it too, so prose after a
				// last attribute is not taken.
				b = min(b, blanks.next(a))
			}
			next = b
		}
		for b > a && (s[b-1] == ' ' || s[b-1] == '\t') {
			b--
		}
		if !attributeList(s, at, next) {
			continue
		}
		if v := s[a:b]; v == "" || isPlaceholder(v) || isMasked(v) || strings.Contains(v, RedactedPrefix) || printfVerb(v) {
			continue
		}
		spans = append(spans, [2]int{a, b})
		pos = max(pos, b)
	}
	return spans
}

// stopScanner finds, for positions that only move forward, the first byte
// at or after each that stop accepts (or len(s)): what it has scanned it
// never scans again, so that many triggers in a run with no stop (Pwd=Pwd=…)
// cost one pass, not one each.
type stopScanner struct {
	s    string
	stop func(s string, i int) bool
	// [from, at) holds no stop; at is a stop or len(s).
	from, at int
	started  bool
}

func (m *stopScanner) next(a int) int {
	if !m.started || a < m.from {
		m.from, m.at, m.started = a, a, true
	} else if a > m.at {
		m.from, m.at = a, a
	} else {
		m.from = a
	}
	for m.at < len(m.s) && !m.stop(m.s, m.at) {
		m.at++
	}
	return m.at
}

// bracedValueEnd returns the '}' that closes an ODBC value opened at s[open]
// ('}}' stands for '}'), within a line.
func bracedValueEnd(s string, open int) (int, bool) {
	for i := open + 1; i < len(s) && i-open < maxUnquotedValue; i++ {
		switch s[i] {
		case '\n':
			return 0, false
		case '}':
			if i+1 < len(s) && s[i+1] == '}' {
				i++
				continue
			}
			return i, true
		}
	}
	return 0, false
}

// attributeList reports that the attribute at s[at:] belongs to a list of
// attributes: a ';' after an earlier `keyword=value`, or a ';' then another
// `keyword=` after it (next is where its value ended), or, libpq's way, a
// blank after one of libpq's keywords and its value.
func attributeList(s string, at, next int) bool {
	i := at
	for i > 0 && (s[i-1] == ' ' || s[i-1] == '\t') {
		i--
	}
	if i > 0 && s[i-1] == ';' {
		seg := s[max(0, i-1-maxUnquotedValue) : i-1]
		if nl := strings.LastIndexAny(seg, ";\n"); nl >= 0 {
			seg = seg[nl+1:]
		}
		if strings.IndexByte(seg, '=') > 0 {
			return true
		}
	}
	if next < len(s) && s[next] == ';' {
		j := skipBlanks(s, next+1)
		if j < len(s) && isAlphaByte(s[j]) && newAssignment(s, j) {
			return true
		}
	}
	if i < at && i > 0 {
		// libpq: host=db user=app password=…
		w := i
		for w > 0 && s[w-1] != ' ' && s[w-1] != '\t' && s[w-1] != '\n' && s[w-1] != '\'' && s[w-1] != '"' {
			w--
		}
		if eq := strings.IndexByte(s[w:i], '='); eq > 0 {
			switch strings.ToLower(s[w : w+eq]) {
			case "host", "hostaddr", "port", "dbname", "user", "sslmode":
				return true
			}
		}
	}
	return false
}

// printfVerb reports a format verb standing for a value (%s, %v, {0}, {}).
func printfVerb(v string) bool {
	switch v {
	case "%s", "%v", "%q", "{}", "{0}", "{1}", "?":
		return true
	}
	return false
}

// literalEscape reports a literal \n, \r or \t at s[i] (a newline escaped
// inside a JSON string or a shell argument).
func literalEscape(s string, i int) bool {
	return s[i] == '\\' && i+1 < len(s) && (s[i+1] == 'n' || s[i+1] == 'r' || s[i+1] == 't')
}

// netrcRule: a .netrc entry's password. The file's grammar is a run of
// tokens separated by blanks or newlines: `machine <host>` (or `default`)
// starts an entry, then pairs `login <name>`, `password <string>`,
// `account <string>`, in any order, on one line or many (as printf writes
// them, with literal \n). The password token counts at any length; an
// entry needs a host that looks like one (a dot, a colon, localhost), and a
// default entry a login first, so prose ("on this machine the password is
// …", "the default password is …") is not an entry.
var netrcRule = &redactRule{kind: KindNetrc, triggers: []string{"machine", "default"}, scan: scanNetrc}

func scanNetrc(s string) [][2]int {
	var spans [][2]int
	f := newTriggerFinder(s, []string{"machine", "default"}, false)
	for pos := 0; ; {
		at, l := f.next(pos)
		if at < 0 {
			break
		}
		pos = at + 1
		if !wholeWord(s, at, l) {
			continue
		}
		i := at + l
		if s[at:at+l] == "machine" {
			hs, he := netrcToken(s, i)
			if he < 0 || !hostLike(s[hs:he]) && !strings.Contains(s[hs:he], ":") {
				continue
			}
			i = he
		}
		for pairs := 0; pairs < 8; pairs++ {
			ks, ke := netrcToken(s, i)
			if ke < 0 {
				break
			}
			kw := s[ks:ke]
			if kw != "login" && kw != "password" && kw != "account" && kw != "port" ||
				pairs == 0 && s[at:at+l] == "default" && kw != "login" {
				break // "the default password is …" is prose
			}
			vs, ve := netrcToken(s, ke)
			if ve < 0 {
				break
			}
			if kw == "password" {
				a, b := vs, ve
				if ve-vs >= 2 && (s[vs] == '"' && s[ve-1] == '"') {
					a, b = vs+1, ve-1
				}
				if v := s[a:b]; v != "" && !isPlaceholder(v) && !isMasked(v) && !strings.Contains(v, RedactedPrefix) {
					spans = append(spans, [2]int{a, b})
				}
			}
			i = ve
			pos = max(pos, ve)
		}
	}
	return spans
}

// netrcToken returns the next .netrc token at or after i, past blanks,
// newlines and literal \n, \t, \r, within a bounded distance; -1, -1 when
// there is none. A token ends at a blank, a newline, a literal escape or a
// quote that closes the shell's string around it; one in double quotes
// runs to its closing quote.
func netrcToken(s string, i int) (int, int) {
	start := i
	for i < len(s) && i-start < 64 {
		if c := s[i]; c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			i++
		} else if literalEscape(s, i) {
			i += 2
		} else {
			break
		}
	}
	if i == start && start > 0 || i >= len(s) {
		return -1, -1 // tokens are separated
	}
	a := i
	if s[i] == '"' {
		if end := strings.IndexByte(s[i+1:min(len(s), i+1+maxUnquotedValue)], '"'); end >= 0 {
			return a, i + 2 + end
		}
	}
	for i < len(s) && i-a < maxUnquotedValue {
		c := s[i]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\'' || c == '"' || c == '`' || literalEscape(s, i) {
			break
		}
		i++
	}
	if i == a {
		return -1, -1
	}
	return a, i
}

// opensslPassRule: the pass:<password> form of openssl's pass phrase
// arguments (-passin, -passout, -pass, -password and the like: a flag
// naming "pass" before it); env:, file:, fd: and stdin name a source, not
// a password, and are left.
var opensslPassRule = &redactRule{kind: KindOpenSSL, triggers: []string{"pass:"}, scan: scanOpenSSLPass}

func scanOpenSSLPass(s string) [][2]int {
	var spans [][2]int
	f := newTriggerFinder(s, []string{"pass:"}, false)
	for pos := 0; ; {
		at, _ := f.next(pos)
		if at < 0 {
			break
		}
		pos = at + 1
		q := byte(0)
		i := at
		if i > 0 && (s[i-1] == '\'' || s[i-1] == '"') {
			q = s[i-1]
			i--
		}
		if i == 0 || s[i-1] != ' ' && s[i-1] != '\t' {
			continue
		}
		j := i - 1
		for j > 0 && (s[j-1] == ' ' || s[j-1] == '\t') {
			j--
		}
		w := j
		for w > 0 && (isAlphaByte(s[w-1]) || s[w-1] == '-') {
			w--
		}
		flag := s[w:j]
		if !strings.HasPrefix(flag, "-") || !strings.Contains(strings.ToLower(flag), "pass") {
			continue
		}
		a := at + len("pass:")
		b := a
		for b < len(s) && b-a < maxUnquotedValue {
			c := s[b]
			if q != 0 && c == q || q == 0 && (c == ' ' || c == '\t' || c == '\'' || c == '"' || c == '`' || c == ';' || c == '|') ||
				c == '\n' || c == '\r' || literalEscape(s, b) {
				break
			}
			b++
		}
		if v := s[a:b]; v == "" || isPlaceholder(v) || isMasked(v) || strings.Contains(v, RedactedPrefix) {
			continue
		}
		spans = append(spans, [2]int{a, b})
		pos = b
	}
	return spans
}

// mysqlPasswordRule: the password of the MySQL and MariaDB clients' -p
// option, which takes its value joined to it (-psecret, -p'secret'; a lone
// -p asks for it, and -P is the port), in a command whose program is one of
// them (mysql, mysqldump, mysqladmin, mariadb, mariadb-dump, …).
var mysqlPasswordRule = &redactRule{kind: KindMySQL, triggers: []string{" -p", "\t-p"}, scan: scanMySQLPassword}

func scanMySQLPassword(s string) [][2]int {
	var spans [][2]int
	f := newTriggerFinder(s, []string{" -p", "\t-p"}, false)
	cmds := mysqlCommands{s: s}
	for pos := 0; ; {
		at, _ := f.next(pos)
		if at < 0 {
			break
		}
		pos = at + 1
		a := at + 3
		if a >= len(s) || strings.IndexByte(" \t\r\n;|&)", s[a]) >= 0 || literalEscape(s, a) || !cmds.has(at) {
			continue
		}
		b := a
		if q := s[a]; q == '\'' || q == '"' {
			end := strings.IndexByte(s[a+1:min(len(s), a+1+maxUnquotedValue)], q)
			if end < 0 {
				continue
			}
			a, b = a+1, a+1+end
		} else {
			for b < len(s) && b-a < maxUnquotedValue && strings.IndexByte(" \t\r\n'\"`;|&)", s[b]) < 0 && !literalEscape(s, b) {
				b++
			}
		}
		if v := s[a:b]; v == "" || isPlaceholder(v) || isMasked(v) || strings.Contains(v, RedactedPrefix) || portMapping(v) {
			continue
		}
		spans = append(spans, [2]int{a, b})
		pos = b
	}
	return spans
}

// portMapping reports docker's -p3306:3306 (digits, dots and colons, one
// colon at least): a port, not a password.
func portMapping(v string) bool {
	return strings.Contains(v, ":") && strings.Trim(v, "0123456789.:") == ""
}

// has reports that the command around s[at] runs a MySQL or MariaDB
// client: one of its words, between the start of the command (a line, '|',
// ';', '&&', '(' or a backtick) and the option, is the program.
func (c *mysqlCommands) has(at int) bool {
	// What lies between the last query and this one: a command separator
	// starts a new command; otherwise its words join the command's.
	from := c.checked
	if i := strings.LastIndexAny(c.s[from:at], "\n|;&(`"); i >= 0 {
		from += i + 1
		c.found = false
	}
	if !c.found {
		prev := ""
		for _, w := range strings.Fields(c.s[from:at]) {
			// docker run --name mysql …, psql -h mysql …: a name, not the
			// program.
			if mysqlProgram(w) && !mysqlNameFlags[prev] {
				c.found = true
				break
			}
			prev = w
		}
	}
	c.checked = at
	return c.found
}

// mysqlCommands answers, for options met in order, whether the command
// each belongs to runs a MySQL or MariaDB client, reading each byte once.
type mysqlCommands struct {
	s       string
	checked int // s[:checked] has been read
	found   bool
}

// mysqlProgram reports a MySQL or MariaDB client's name, possibly with a
// path (/usr/bin/mysql) or quoted.
func mysqlProgram(w string) bool {
	w = strings.Trim(w, `"'`)
	if i := strings.LastIndexByte(w, '/'); i >= 0 {
		w = w[i+1:]
	}
	return mysqlPrograms[w] || strings.HasPrefix(w, "mysql") && mysqlPrograms[strings.TrimPrefix(w, "mysql")] ||
		strings.HasPrefix(w, "mariadb-") && mysqlPrograms[strings.TrimPrefix(w, "mariadb-")]
}

// mysqlNameFlags take a name that may be "mysql" (a container, a host).
var mysqlNameFlags = map[string]bool{"--name": true, "-h": true, "--host": true, "--hostname": true, "--link": true}

// mysqlPrograms are the clients (and the suffixes after mysql and
// mariadb-) that take -p<password>.
var mysqlPrograms = map[string]bool{
	"mysql": true, "mariadb": true, "dump": true, "admin": true, "import": true, "show": true, "check": true,
	"pump": true, "slap": true, "binlog": true, "sh": true, "upgrade": true,
}

// envDefaultRule: the default a shell or a compose file gives a secret
// variable: ${NAME:-default}, ${NAME-default}, ${NAME:=default},
// ${NAME=default}, where NAME is a secret name (SEC-7's rules). The default
// is the password in use whenever the variable is unset, at any length; a
// default that is itself a reference (${A:-$B}, ${A:-${B}}) is not.
var envDefaultRule = &redactRule{kind: KindEnvDefault, triggers: []string{"${"}, scan: scanEnvDefaults}

func scanEnvDefaults(s string) [][2]int {
	var spans [][2]int
	f := newTriggerFinder(s, []string{"${"}, false)
	for pos := 0; ; {
		at, _ := f.next(pos)
		if at < 0 {
			break
		}
		pos = at + 1
		ns := at + 2
		ne := ns
		for ne < len(s) && ne-ns < 128 && isWordByte(s[ne]) {
			ne++
		}
		if ne == ns || isDigitByte(s[ns]) {
			continue
		}
		op := ne
		switch {
		case strings.HasPrefix(s[op:], ":-"), strings.HasPrefix(s[op:], ":="):
			op += 2
		case op < len(s) && (s[op] == '-' || s[op] == '='):
			op++
		default:
			continue // ${NAME}, ${NAME:?message}, ${NAME:+alternate}
		}
		end := strings.IndexByte(s[op:min(len(s), op+maxUnquotedValue)], '}')
		if end < 0 {
			continue
		}
		a, b := op, op+end
		if v := s[a:b]; len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			a, b = a+1, b-1
		}
		v := s[a:b]
		if v == "" || strings.ContainsAny(v, "\n$") || isPlaceholder(v) || isMasked(v) || strings.Contains(v, RedactedPrefix) {
			continue
		}
		if !secretName(s[ns:ne]) && !leadingSecretName(s[ns:ne], false) {
			continue
		}
		spans = append(spans, [2]int{a, b})
		pos = op + end
	}
	return spans
}
