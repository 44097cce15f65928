package redact

import "strings"

// Provider tokens that gitleaks v8.30.1 has no rule for, or finds only next
// to a label (mailchimp = …, telegram_token = …): each rule is written from
// the provider's documented format, and finds the token bare, in a URL, in
// a header or after any label.

// googleClientSecretRule: Google's OAuth client secrets, "GOCSPX-" and 28
// characters of base64url since 2022 (client_secret.json's client_secret).
var googleClientSecretRule = tokenRule(KindGoogleClientSecret, `GOCSPX-[A-Za-z0-9_-]{28}`, "GOCSPX-")

// dockerHubRule: Docker Hub access tokens, "dckr_pat_" (personal) or
// "dckr_oat_" (organization) and their random part (27 characters of
// base64url in the tokens Docker issues; any 20 or more are taken).
var dockerHubRule = tokenRule(KindDockerHub, `dckr_(?:pat|oat)_[A-Za-z0-9_-]{20,}`, "dckr_pat_", "dckr_oat_")

// squareSecretRule: Square application (OAuth client) secrets, "sq0csp-"
// in production and "sandbox-sq0csb-" in the sandbox, then 43 characters of
// base64url. Square's access tokens (EAAA…, sq0atp-…) are gitleaks'
// square-access-token.
var squareSecretRule = &redactRule{
	kind:      KindSquare,
	re:        lazyRE(`^(?:sandbox-)?sq0cs[pb]-[A-Za-z0-9_-]{43}`),
	triggers:  []string{"sandbox-sq0csb-", "sq0csp-", "sq0csb-"},
	span:      exactTokenSpan,
	wordStart: true,
}

// notionRule: Notion integration tokens: "ntn_" and 46 letters and digits
// (the format since September 2024), and the earlier "secret_" and 43. A
// token is random: it holds a digit and both cases.
var notionRule = &redactRule{
	kind:      KindNotion,
	re:        lazyRE(`^(?:ntn_[A-Za-z0-9]{46}|secret_[A-Za-z0-9]{43})`),
	triggers:  []string{"ntn_", "secret_"},
	wordStart: true,
	span: func(s string, m []int) (int, int, bool) {
		a, b, ok := exactTokenSpan(s, m)
		if !ok || !mixedAlnum(s[strings.IndexByte(s[a:b], '_')+a+1:b]) {
			return 0, 0, false
		}
		return a, b, true
	},
}

// telegramURLRule: a Telegram bot token in a Bot API URL,
// https://api.telegram.org/bot<token>/<method> (and /file/bot<token>/…). A
// token is the bot's numeric id, ':' and its secret, 35 characters of
// base64url in issued tokens and 34 in the Bot API's own examples, so 30 or
// more are taken (gitleaks' telegram-bot-api-token finds it only after a
// telegram label and '=' or ':').
var telegramURLRule = &redactRule{
	kind:     KindTelegram,
	re:       lazyRE(`^/bot([0-9]{5,16}:[A-Za-z0-9_-]{30,})`),
	triggers: []string{"/bot"},
	span: func(s string, m []int) (int, int, bool) {
		a, b := m[2], m[3]
		if b < len(s) && isTokenByte(s[b]) || isMasked(s[a:b]) {
			return 0, 0, false
		}
		return a, b, true
	},
}

// mailchimpRule: Mailchimp Marketing API keys, 32 hex digits, "-us" and the
// number of the key's data center (…-us6, …-us21). Found by hand from the
// "-us" that follows the hex: the token starts 32 bytes before its trigger.
var mailchimpRule = &redactRule{kind: KindMailchimp, triggers: []string{"-us"}, scan: scanMailchimp}

func scanMailchimp(s string) [][2]int {
	var spans [][2]int
	f := newTriggerFinder(s, []string{"-us"}, false)
	for pos := 0; ; {
		at, _ := f.next(pos)
		if at < 0 {
			break
		}
		pos = at + 1
		a := at - 32
		if a < 0 || !boundaryBefore(s, a) || !allHex(s[a:at]) || !mixedHex(s[a:at]) {
			continue
		}
		b := at + 3
		for b < len(s) && b < at+5 && isDigitByte(s[b]) {
			b++
		}
		if b == at+3 || b < len(s) && isTokenByte(s[b]) {
			continue
		}
		spans = append(spans, [2]int{a, b})
		pos = b
	}
	return spans
}

// azureSASRule: the signature of an Azure shared access signature, the
// `sig` parameter of a SAS token or URL (…&se=…&sp=r&sig=…, and
// SharedAccessSignature=sv=…&sig=… in a connection string): an HMAC-SHA256,
// so 32 bytes in base64 (43 characters and one '='), usually
// percent-encoded (%2B, %2F, %3D).
var azureSASRule = &redactRule{kind: KindAzureSAS, triggers: []string{"sig="}, scan: scanSASSignatures}

func scanSASSignatures(s string) [][2]int {
	var spans [][2]int
	f := newTriggerFinder(s, []string{"sig="}, false)
	for pos := 0; ; {
		at, _ := f.next(pos)
		if at < 0 {
			break
		}
		pos = at + 1
		if at > 0 && strings.IndexByte("?&;\"' \t\n", s[at-1]) < 0 {
			continue // "xsig=": another parameter
		}
		a := at + len("sig=")
		b, n := a, 0 // n: base64 characters once decoded
		for b < len(s) && b-a < 128 {
			if c := s[b]; isAlnumByte(c) || c == '+' || c == '/' || c == '=' || c == '-' || c == '_' {
				b++
				n++
				continue
			}
			if s[b] == '%' && b+2 < len(s) {
				if x, ok := hexByte(s[b+1], s[b+2]); ok && (x == '+' || x == '/' || x == '=') {
					b += 3
					n++
					continue
				}
			}
			break
		}
		if b < len(s) && !isValueStop(s[b]) && s[b] != '#' && s[b] != '\\' {
			continue
		}
		// 32 bytes: 43 characters, with or without the padding '='.
		if n != 43 && n != 44 || n == 44 && !strings.HasSuffix(s[a:b], "=") && !strings.HasSuffix(strings.ToUpper(s[a:b]), "%3D") {
			continue
		}
		if v := s[a:b]; strings.Contains(v, RedactedPrefix) || isMasked(v) || !mixedAlnum(v) {
			continue
		}
		spans = append(spans, [2]int{a, b})
		pos = b
	}
	return spans
}

// exactTokenSpan accepts a token match of its format's exact length: it must
// not start inside a word nor run on into more token characters, and must
// not be a mask.
func exactTokenSpan(s string, m []int) (int, int, bool) {
	a, b := m[0], m[1]
	if !boundaryBefore(s, a) || b < len(s) && isTokenByte(s[b]) || isMasked(s[a:b]) {
		return 0, 0, false
	}
	return a, b, true
}

// mixedAlnum reports a value holding a digit and an upper- and a lower-case
// letter: what a random token of letters and digits holds (one of 43
// characters misses a class one time in some hundred thousand).
func mixedAlnum(v string) bool {
	var digit, upper, lower bool
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case isDigitByte(c):
			digit = true
		case isUpperByte(c):
			upper = true
		case isLowerByte(c):
			lower = true
		}
	}
	return digit && upper && lower
}

func allHex(v string) bool {
	for i := 0; i < len(v); i++ {
		if hexVal(v[i]) > 15 {
			return false
		}
	}
	return true
}

// mixedHex reports hex digits holding both a digit and a letter, as random
// hex does.
func mixedHex(v string) bool {
	return strings.ContainsAny(v, "0123456789") && strings.ContainsAny(v, "abcdefABCDEF")
}
