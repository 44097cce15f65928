// Package redact finds secrets in text and replaces each with
// [REDACTED:<kind>] (specs/security.md SEC-5 to SEC-12): gitleaks' rules,
// generated into gitleaks.go by redactgen, and compact-guard's own rules
// for what gitleaks lacks (own.go and the files it names). It knows
// nothing of snapshots: snapshot.RedactRecord walks a record's free text
// through Text and Cut.
package redact

import (
	"strings"
	"unicode/utf8"
)

//go:generate go run -C redactgen . -out .. -spec ../../../specs/security.md

// Kinds of the compact-guard layer (own.go): the word inside
// [REDACTED:<kind>] for what gitleaks' rules lack. Every other kind is a
// gitleaks rule id (gitleaks.go).
const (
	KindAnthropic      = "anthropic"
	KindOpenAI         = "openai"
	KindAWSSecret      = "aws-secret"
	KindGoogleOAuth    = "google-oauth"
	KindStripeWebhook  = "stripe-webhook-secret"
	KindPrivateKey     = "private-key-block"
	KindJWE            = "jwe"
	KindAuthorization  = "authorization"
	KindURLCredentials = "url-credentials"
	KindAssignment     = "assignment"
	KindCutToken       = "cut-token"

	KindGoogleClientSecret = "google-oauth-client-secret"
	KindNotion             = "notion-token"
	KindDockerHub          = "docker-hub-token"
	KindSquare             = "square-secret"
	KindMailchimp          = "mailchimp-key"
	KindTelegram           = "telegram-bot-token"
	KindAzureSAS           = "azure-sas-signature"
	KindConnString         = "connection-string"
	KindNetrc              = "netrc"
	KindOpenSSL            = "openssl-pass"
	KindMySQL              = "mysql-password"
	KindEnvDefault         = "env-default"
	KindCookie             = "cookie"
	KindXML                = "xml-element"
)

// RedactedPrefix starts every replacement; a value already holding it is never
// redacted again, which keeps Text idempotent.
const RedactedPrefix = "[REDACTED:"

// MinSecretLen is the shortest value (in characters) the generic rules
// (assignments, Authorization headers) treat as a secret: shorter values are
// placeholders or flags far more often than credentials.
const MinSecretLen = 8

// MaxRedactionGrowth bounds how many bytes one replacement can add to a
// text: the longest marker (every rule replaces at least one byte).
const MaxRedactionGrowth = len(RedactedPrefix+"]") + max(gitleaksLongestID, len(KindStripeWebhook))

// minRedactLen is the shortest text any rule can match ("://:p@").
const minRedactLen = 6

func redactMarker(kind string) string { return RedactedPrefix + kind + "]" }

// Text replaces secrets in s with [REDACTED:<kind>] and returns the new text
// and the number of replacements. It applies gitleaks' rules (engine.go)
// and compact-guard's own (own.go); it is best effort (specs/security.md
// lists what it covers), linear in len(s), and idempotent: Text of its own
// output changes nothing.
func Text(s string) (string, int) {
	if len(s) < minRedactLen {
		return s, 0
	}
	n := 0
	// Private key blocks first: gitleaks' private-key rule needs 64
	// characters between BEGIN and END and, short of them, runs on into the
	// next block, leaving its key.
	if strings.Contains(s, "PRIVATE KEY") {
		var k int
		s, k = redactPrivateKeys(s)
		n += k
	}
	// A replacement can put a word boundary where there was none (`]ghp_…`
	// right after a fixed-length key), so the rules run again on a changed
	// text until nothing changes (at most maxRounds); in practice the second
	// round finds nothing.
	for round := 0; round < maxRounds; round++ {
		k := 0
		if spans := gitleaksSpans(s); len(spans) > 0 {
			s, k = replaceSpans(s, spans), len(spans)
		}
		if mask := triggerMask(s); mask != 0 {
			for i, r := range redactRules {
				if mask&(1<<i) == 0 {
					continue
				}
				out, c := r.apply(s)
				s, k = out, k+c
			}
		}
		if k == 0 {
			break
		}
		n += k
	}
	return s, n
}

const maxRounds = 4

// Cut cuts a redacted text after keep characters, but never inside a
// [REDACTED:…] marker: one the cut would split is kept whole. When the text
// went on past what the redaction saw (more), a run of token characters
// that the cut splits and that lasts to the end of what was seen is longer
// than any rule could judge (a JWT of kilobytes): its kept part is replaced
// by [REDACTED:cut-token], and 1 is returned with the text.
func Cut(s string, keep int, more bool) (string, int) {
	i := 0
	for runes := 0; i < len(s) && runes < keep; runes++ {
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
	}
	if i >= len(s) {
		return s, 0
	}
	lo := max(0, i-MaxRedactionGrowth)
	if m := strings.LastIndex(s[lo:min(len(s), i+len(RedactedPrefix)-1)], RedactedPrefix); m >= 0 && lo+m < i {
		start := lo + m
		if end := strings.IndexByte(s[start:], ']'); end >= 0 && start+end >= i {
			return s[:start+end+1], 0
		}
	}
	if more && isCutTokenByte(s[i-1]) && isCutTokenByte(s[i]) {
		end := i
		for end < len(s) && isCutTokenByte(s[end]) {
			end++
		}
		if end == len(s) {
			start := i
			for start > 0 && isCutTokenByte(s[start-1]) {
				start--
			}
			return s[:start] + redactMarker(KindCutToken), 1
		}
	}
	return s[:i], 0
}

// isCutTokenByte: the alphabet of tokens (base64, base64url, JWT).
func isCutTokenByte(c byte) bool {
	return isAlnumByte(c) || strings.IndexByte("+/=_.-~", c) >= 0
}
