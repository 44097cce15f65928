package redact

import "strings"

// Secrets that markup carries: HTTP cookies and XML elements named for a
// secret.

// cookieRule: the values of the cookies a request sends or a response sets:
// the `Cookie:` and `Set-Cookie:` headers (also as a JSON or dictionary key,
// "Cookie": "…") and curl's --cookie and -b with name=value data (a -b
// without '=' names a cookie file). A cookie string is name=value pairs
// separated by ';' (RFC 6265); each value of MinSecretLen or more
// characters goes, the names stay, and Set-Cookie's attributes (Path,
// Expires, …) are not cookies. Session cookies are credentials; short
// values are preferences (lang=en).
var cookieRule = &redactRule{kind: KindCookie, triggers: []string{"cookie", "curl"}, fold: true, scan: scanCookies}

func scanCookies(s string) [][2]int {
	var spans [][2]int
	f := newTriggerFinder(s, []string{"cookie"}, true)
	for pos := 0; ; {
		at, l := f.next(pos)
		if at < 0 {
			break
		}
		pos = at + 1
		if at > 0 && isWordByte(s[at-1]) || at+l < len(s) && isWordByte(s[at+l]) {
			continue // cookies, cookieJar: other words
		}
		i := at + l
		var found [][2]int
		if at >= 2 && s[at-2:at] == "--" {
			found = cookieArgument(s, i)
		} else {
			if i < len(s) && (s[i] == '"' || s[i] == '\'') {
				i++
			} else if strings.HasPrefix(s[i:], `\"`) {
				i += 2
			}
			i = skipBlanks(s, i)
			if i >= len(s) || s[i] != ':' {
				continue
			}
			found = cookiePairs(s, skipQuote(s, skipBlanks(s, i+1)))
		}
		spans = append(spans, found...)
		if n := len(found); n > 0 {
			pos = found[n-1][1]
		}
	}
	// curl -b name=value: the flag means a cookie only after curl on the
	// same line.
	if strings.Contains(s, "curl") {
		b := newTriggerFinder(s, []string{" -b"}, false)
		for pos := 0; ; {
			at, _ := b.next(pos)
			if at < 0 {
				break
			}
			pos = at + 1
			ls := strings.LastIndexByte(s[max(0, at-maxUnquotedValue):at], '\n')
			line := s[max(0, at-maxUnquotedValue)+ls+1 : at]
			if c := strings.Index(line, "curl"); c < 0 || !wholeWord(line, c, 4) {
				continue
			}
			if found := cookieArgument(s, at+3); len(found) > 0 {
				spans = append(spans, found...)
				pos = found[len(found)-1][1]
			}
		}
		spans = sortSpans(spans)
	}
	return spans
}

// cookieArgument reads the argument of --cookie or -b at s[i] (after '=' or
// blanks): cookie pairs, or nothing for a file name.
func cookieArgument(s string, i int) [][2]int {
	if i < len(s) && s[i] == '=' {
		i++
	} else {
		j := skipBlanks(s, i)
		if j == i {
			return nil
		}
		i = j
	}
	return cookiePairs(s, skipQuote(s, i))
}

func skipQuote(s string, i int) int {
	if strings.HasPrefix(s[i:], `\"`) {
		return i + 2
	}
	if i < len(s) && (s[i] == '"' || s[i] == '\'') {
		return i + 1
	}
	return i
}

// cookiePairs returns the secret values of the cookie string at s[i].
func cookiePairs(s string, i int) [][2]int {
	var spans [][2]int
	for pairs := 0; pairs < 64 && i < len(s); pairs++ {
		ns := i
		for i < len(s) && i-ns < 256 && cookieNameByte(s[i]) {
			i++
		}
		if i == ns || i >= len(s) || s[i] != '=' {
			break
		}
		name := s[ns:i]
		a := i + 1
		quoted := a < len(s) && s[a] == '"'
		if quoted {
			a++
		}
		b := a
		for b < len(s) && b-a < 4096 && cookieValueByte(s[b]) {
			b++
		}
		i = b
		if quoted && i < len(s) && s[i] == '"' {
			i++
		}
		if v := s[a:b]; !cookieAttributes[strings.ToLower(name)] && len(v) >= MinSecretLen &&
			!isPlaceholder(v) && !isMasked(v) && !strings.Contains(v, RedactedPrefix) {
			spans = append(spans, [2]int{a, b})
		}
		i = skipBlanks(s, i)
		if i >= len(s) || s[i] != ';' {
			break
		}
		i = skipBlanks(s, i+1)
	}
	return spans
}

// cookieNameByte: an RFC 6265 token character, less the quotes that close a
// shell argument.
func cookieNameByte(c byte) bool {
	return isAlnumByte(c) || strings.IndexByte("!#$%&*+-.^_|~", c) >= 0
}

// cookieValueByte: an RFC 6265 cookie-octet (no blank, '"', ',', ';' or
// '\'), less the single quote that closes a shell argument.
func cookieValueByte(c byte) bool {
	return c > ' ' && c < 0x7f && c != '"' && c != ',' && c != ';' && c != '\\' && c != '\''
}

// cookieAttributes are Set-Cookie's attributes, not cookies.
var cookieAttributes = map[string]bool{
	"expires": true, "max-age": true, "domain": true, "path": true, "secure": true, "httponly": true,
	"samesite": true, "priority": true, "partitioned": true, "version": true, "comment": true,
}

// sortSpans orders spans by start and drops those overlapping an earlier one.
func sortSpans(spans [][2]int) [][2]int {
	for i := 1; i < len(spans); i++ {
		for j := i; j > 0 && spans[j][0] < spans[j-1][0]; j-- {
			spans[j], spans[j-1] = spans[j-1], spans[j]
		}
	}
	out := spans[:0]
	for _, sp := range spans {
		if n := len(out); n > 0 && sp[0] < out[n-1][1] {
			continue
		}
		out = append(out, sp)
	}
	return out
}

// xmlElementRule: the text of an XML element whose name is a secret name
// (<password>…</password>, Maven's <password>, <db:password>, <apiKey>,
// <client_secret>), with or without attributes and in CDATA, on one line or
// several. The element is found from its closing tag (also <\/ in an
// escaped string); its text counts at any length, unless it is empty, a
// placeholder (${env.DB_PASSWORD}, {{ … }}, {value}) or true/false. A bare
// <key> names a key (Apple property lists, S3 listings), not a secret.
var xmlElementRule = &redactRule{kind: KindXML, triggers: []string{"</", `<\/`}, scan: scanXMLElements}

func scanXMLElements(s string) [][2]int {
	var spans [][2]int
	f := newTriggerFinder(s, []string{"</", `<\/`}, false)
	for pos := 0; ; {
		at, l := f.next(pos)
		if at < 0 {
			break
		}
		pos = at + 1
		ne := at + l
		for ne < len(s) && ne-at < 80 && (isNameByte(s[ne]) || s[ne] == ':') {
			ne++
		}
		name := s[at+l : ne]
		if ne >= len(s) || s[ne] != '>' || name == "" {
			continue
		}
		local := name[strings.LastIndexByte(name, ':')+1:]
		if local == "" || !isAlphaByte(local[0]) || !secretName(local) || bareKeyName(local) {
			continue
		}
		a, b, ok := xmlText(s, at, name)
		if !ok {
			continue
		}
		for a < b && strings.IndexByte(" \t\r\n", s[a]) >= 0 {
			a++
		}
		for b > a && strings.IndexByte(" \t\r\n", s[b-1]) >= 0 {
			b--
		}
		v := s[a:b]
		if v == "" || isPlaceholder(v) || isMasked(v) || strings.Contains(v, RedactedPrefix) ||
			v[0] == '{' && v[len(v)-1] == '}' || strings.EqualFold(v, "true") || strings.EqualFold(v, "false") {
			continue
		}
		spans = append(spans, [2]int{a, b})
		pos = max(pos, ne)
	}
	return spans
}

// xmlText returns the text of the element that the closing tag at s[end]
// closes: between its opening tag <name …> and end, holding no other tag
// (a CDATA section is unwrapped), within a bounded distance.
func xmlText(s string, end int, name string) (int, int, bool) {
	lo := max(0, end-maxUnquotedValue)
	lt := strings.LastIndexByte(s[lo:end], '<')
	if lt < 0 {
		return 0, 0, false
	}
	lt += lo
	a, b, cdata := -1, end, -1
	if strings.HasPrefix(s[lt:], "<![CDATA[") {
		if !strings.HasSuffix(s[:end], "]]>") || lt+len("<![CDATA[") > end-len("]]>") {
			return 0, 0, false
		}
		a, b, cdata = lt+len("<![CDATA["), end-len("]]>"), lt
		open := strings.LastIndexByte(s[lo:lt], '<')
		if open < 0 {
			return 0, 0, false
		}
		lt = lo + open
	}
	if !strings.HasPrefix(s[lt+1:], name) {
		return 0, 0, false
	}
	after := lt + 1 + len(name)
	limit := end
	if cdata >= 0 {
		limit = cdata
	}
	if after >= limit || s[after] != '>' && s[after] != ' ' && s[after] != '\t' && s[after] != '\n' {
		return 0, 0, false
	}
	gt := strings.IndexByte(s[after:limit], '>')
	if gt < 0 || gt > 0 && s[after+gt-1] == '/' {
		return 0, 0, false // <password/> holds nothing
	}
	text := after + gt + 1
	if cdata >= 0 {
		if strings.TrimSpace(s[text:cdata]) != "" {
			return 0, 0, false
		}
		return a, b, true
	}
	return text, b, true
}
