package redact

import "strings"

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
