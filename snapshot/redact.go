package snapshot

import (
	"strings"
	"unicode/utf8"

	"github.com/compact-guard/compact-guard/transcript"
)

//go:generate go run -C redactgen . -out .. -spec ../../specs/security.md

// Kinds of the compact-guard layer (redact_own.go): the word inside
// [REDACTED:<kind>] for what gitleaks' rules lack. Every other kind is a
// gitleaks rule id (redact_gitleaks.go).
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
// redacted again, which keeps Redact idempotent.
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

// Redact replaces secrets in s with [REDACTED:<kind>] and returns the new text
// and the number of replacements. It applies gitleaks' rules
// (redact_engine.go) and compact-guard's own (redact_own.go); it is best
// effort (specs/security.md lists what it covers), linear in len(s), and
// idempotent: Redact of its own output changes nothing.
func Redact(s string) (string, int) {
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

// RedactRecord redacts, in place, every free-text field of a record: prompts,
// custom instructions, commands with their tools, descriptions and error
// lines, failures with their tools (an MCP tool's name is its server's
// choice), the plan, todo and task subjects, statuses and active forms, the
// trigger, prompt id and hook event the payload gave, the git subject and
// error, the payload error and warnings. A text the transcript cut is
// redacted together with what followed the cut (transcript.TailChars), then
// cut again, so that a secret straddling the cut leaves no prefix.
// Identifiers and paths (session id, names, file paths, cwd, branch) are
// left alone. It returns the number of replacements.
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
	rw := func(full string, keep int) string {
		out, k := Redact(full)
		n += k
		if keep < 0 {
			return out
		}
		cut, k := cutRedacted(out, keep, utf8.RuneCountInString(full)-keep >= transcript.TailChars)
		n += k
		return cut
	}
	red(&r.Trigger)
	red(&r.PromptID)
	red(&r.HookEvent)
	red(r.CustomInstructions)
	red(&r.PayloadError)
	for i := range r.Prompts {
		r.Prompts[i].Rewrite(rw)
	}
	for i := range r.Commands {
		r.Commands[i].Rewrite(rw)
	}
	for _, tasks := range [][]transcript.Task{r.Todos, r.Tasks} {
		for i := range tasks {
			tasks[i].Rewrite(rw)
		}
	}
	for i := range r.Failures {
		r.Failures[i].Rewrite(rw)
	}
	if r.Plan != nil {
		r.Plan.Rewrite(rw)
	}
	if r.Git != nil {
		red(&r.Git.Subject)
		red(&r.Git.Error)
	}
	for i := range r.Warnings {
		red(&r.Warnings[i])
	}
	return n + RedactPreparation(r.Preparation)
}

// RedactPreparation redacts the free text of a record's preparation (the
// handoff block's heading and next step) and returns how many secrets it
// replaced. precompact adds the preparation after RedactRecord ran, so it
// redacts it on its own (PC-26, PC-15).
func RedactPreparation(p *Preparation) int {
	if p == nil || p.Handoff == nil {
		return 0
	}
	n := 0
	for _, f := range []*string{&p.Handoff.Heading, &p.Handoff.NextStep} {
		out, k := Redact(*f)
		*f, n = out, n+k
	}
	return n
}

// cutRedacted cuts a redacted text after keep characters, but never inside a
// [REDACTED:…] marker: one the cut would split is kept whole. When the text
// went on past what the redaction saw (more), a run of token characters
// that the cut splits and that lasts to the end of what was seen is longer
// than any rule could judge (a JWT of kilobytes): its kept part is replaced
// by [REDACTED:cut-token], and 1 is returned with the text.
func cutRedacted(s string, keep int, more bool) (string, int) {
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
