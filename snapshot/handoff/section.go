package handoff

import "strings"

// Section returns the text of the block's section key ("next" for NEXT
// STEP), without the template's HTML comments and the blank lines around
// it; "" when the section is absent or empty. The residue hands the next
// step back when the summary dropped it (specs/residue.md RS-4).
func (b *Block) Section(key string) string {
	if b == nil {
		return ""
	}
	s := b.text[key]
	for {
		i := strings.Index(s, "<!--")
		if i < 0 {
			break
		}
		j := strings.Index(s[i:], "-->")
		if j < 0 {
			s = s[:i]
			break
		}
		s = s[:i] + s[i+j+3:]
	}
	return strings.TrimSpace(s)
}
