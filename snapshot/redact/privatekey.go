package redact

import "strings"

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
