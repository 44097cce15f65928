package standing

import (
	"strings"
	"unicode"
)

// subject is what an instruction is about, for ST-11: its content words
// (letters or digits, at least 4 characters, not a common word).
type subject map[string]bool

func subjectOf(text string) subject {
	head := normal(text)
	if r := []rune(head); len(r) > ScanChars {
		head = string(r[:ScanChars])
	}
	s := subject{}
	for _, w := range strings.FieldsFunc(head, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) && r != '_' }) {
		if len([]rune(w)) >= 4 && !common[w] {
			s[w] = true
		}
	}
	return s
}

// sameAs reports whether a later instruction l says the same subject as s
// again (ST-11): they share at least 3 content words and at least half of
// the smaller one's. A retyped instruction is the same subject too.
func (s subject) sameAs(l subject) bool {
	shared := 0
	for w := range l {
		if s[w] {
			shared++
		}
	}
	small := min(len(s), len(l))
	return shared >= 3 && 2*shared >= small
}

// common are the words of 4 or more letters that say nothing of a subject.
var common = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`this that these those there their they them then than what when where which while
		with without would could should about also just only really think like want need make sure always never dont
		don't didn't doesn't isn't aren't it's that's let's we'll i'd i'm you're have been being from into over some
		more most other same such very will your yours please maybe still again first last next thing things
		это этот эта эти того тоже только когда если чтобы надо нужно давай давайте всегда никогда должен должны
		можно будет было были есть него нему этом этой`) {
		common[w] = true
	}
}
