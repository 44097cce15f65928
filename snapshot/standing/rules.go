package standing

import (
	"regexp"
	"strings"

	"golang.org/x/text/unicode/norm"

	"github.com/compact-guard/compact-guard/transcript/textcut"
)

// ScanChars is how many characters of a prompt the rules read. A cue
// further on is the words of something pasted (a log, a review comment),
// not the user's (ST-1); and reading stays bounded for a megabyte prompt.
const ScanChars = 400

// rule is one clause of selection: the cues that choose a prompt, as one
// regular expression over the prompt's normal form (see normal).
type rule struct {
	id   string
	kind Kind
	re   *regexp.Regexp
}

// Word edges in the patterns: Go's \b knows only ASCII letters, and the
// rules read Russian too.
const (
	wb = `(?:^|[^\p{L}\p{N}_])`
	we = `(?:$|[^\p{L}\p{N}_])`
	// clause is where an imperative begins: the start, after punctuation
	// or a joining word ("also don't", "but never").
	// sentence is where a sentence begins.
	sentence = `(?:^|[.;:!?]\s+)`
	clause   = `(?:^|[.;:!?,(\-–—]\s*|` + wb + `(?:and|but|also|please|just|so|и|но|а|также|пожалуйста|просто)\s+)`
)

func cues(words ...string) string { return wb + `(?:` + strings.Join(words, `|`) + `)` + we }

// rules are tried in this order; the first that matches chooses the
// prompt and names it. A correction comes first: "no, never use X"
// corrects before it constrains.
var rules = []rule{
	{"ST-5", Correction, regexp.MustCompile(
		`^(?:(?:hmm|ah|oh|ok|okay|sorry|хм|ой)[,.!]?\s+)?(?:no|nope|nah|нет|неа)[,.!:;]?(?:\s+[^\s.!?]+){4}` +
			`|` + clause + `actually` + we + `|` + cues(`that is wrong`, `that's wrong`, `that's not right`, `you are not correct`, `you're not correct`,
			`you are wrong`, `you're wrong`, `(?:that's|that is|this is|it's|it is|you're|you are) not correct`, `i (?:also |just )?meant`, `(?:is|are) wrong`, `my point is`, `no wait`,
			`на самом деле`, `не так`, `неправильно`, `неверно`, `имел в виду`, `имела в виду`, `я не это`) +
			`|` + wb + `not\s+[\p{L}\p{N}_./-]+(?:\s+[\p{L}\p{N}_./-]+)?,?\s+but` + we +
			`|` + wb + `should be\s+\S*[^\p{L}\s]\S*\s+now` + we)},
	{"ST-2", Constraint, regexp.MustCompile(
		clause + `(?:don't|do not|dont|never|always|make sure|use|avoid|stick to|keep|note|не трогай|не меняй|не используй|не добавляй|не удаляй)` + we +
			`|` + `(?:^|[.;:!?,]\s+|` + wb + `(?:but|then|но|потом)\s+)we should` + we + `|` + cues(`must`, `must not`, `mustn't`, `should never`, `should always`,
			`should (?:send|handle|be using|always|never|only|use|show|return|print|stay|keep|not|match|call)`, `independent of`,
			`no need to`, `(?:doesn't|does not|don't) make sense to`, `without doing`, `without changing`, `keep in mind`, `it needs to`, `source of truth`,
			`regardless of`, `wherever we can`, `we need to be sure`,
			`обязательно`, `никогда`, `всегда`, `нельзя`, `не надо`, `не нужно`, `должен`, `должна`, `должно`, `должны`, `только не`, `ни в коем случае`))},
	{"ST-3", Decision, regexp.MustCompile(
		clause + `we (?:really )?need to` + we + `|` + cues(`let's go with`, `let's go for`, `go with option`, `we'll go with`, `we will go with`, `we'll use`, `we will use`,
			`i'd go with`, `i would go with`, `options? [a-z0-9]`, `for now`, `will suffice`, `is acceptable`,
			`i think we should`, `i think let's`, `i think we can`, `we don't need`, `we don't really need`, `don't really need`,
			`getting rid of`, `in a separate (?:task|pr|branch|issue)`,
			`(?:tackle|implement|do|take|go with) \d(?:\s*(?:,|and|&|и)\s*\d)*`, `is too much`, `is to much`, `not really feasible`, `we will take`,
			`let's (?:just |not |also |then )?(?:go with|go for|drop|remove|keep|store|include|abandon|roll back|bump|leave|skip|defer|postpone|stick with|stay with|use|have|not have|try something else|do \d|swap)`,
			`давай(?:те)? (?:используем|сделаем|оставим|выберем|остановимся|не будем|уберём|уберем)`,
			`решили`, `будем использовать`, `используем`, `вариант [a-zа-я0-9]`, `остановимся на`, `выбираем`, `пока что`, `пока оставим`))},
	{"ST-4", Preference, regexp.MustCompile(
		clause + `(?:ideally|instead of)` + we + `|` + cues(`i prefer`, `i'd prefer`, `i would prefer`, `prefer`, `i (?:do )?(?:also )?want`, `i would like`, `i'd like it`,
			`i'd like to refactor`, `i like`, `in favou?r of`, `i would replace`, `rather than`, `(?:use|using|rebase|show|send|call|return|be)\s+(?:\S+\s+){0,5}instead of`, `i'd rather`,
			`предпочитаю`, `лучше используй`, `лучше использовать`, `хочу`, `вместо`, `мне нравится`))},
}

// pasted starts a prompt that is output the user pasted in (a test run, a
// log, a console, a hook's message), in normal form: its cue words are the
// output's, not the user's (ST-1).
var pasted = []string{"---", "===", "```", "{", "❯", "⏺", "⎿", "operation stopped by hook:", "error:", "traceback", "panic:"}

// match returns the first rule whose cue is in the prompt's first
// ScanChars characters, with the cue as the prompt has it.
func match(text string) (found struct {
	kind      Kind
	rule, cue string
}, ok bool) {
	head, _ := textcut.Runes(text, ScanChars)
	n := normal(head)
	if len(strings.Fields(n)) < 2 {
		return found, false // ST-1: a word alone ("yes", "4") says nothing on its own
	}
	for _, m := range pasted {
		if strings.HasPrefix(n, m) {
			return found, false // ST-1: output pasted in, not the user's words
		}
	}
	for _, r := range rules {
		if loc := r.re.FindStringIndex(n); loc != nil {
			found.kind, found.rule = r.kind, r.id
			found.cue = strings.TrimFunc(n[loc[0]:loc[1]], func(c rune) bool {
				return c == ' ' || c == ',' || c == '.' || c == '(' || c == ';' || c == ':' || c == '!' || c == '?'
			})
			return found, true
		}
	}
	return found, false
}

// normal is the form the rules read: NFC, lower case, one kind of
// apostrophe, white space runs as one space.
func normal(s string) string {
	s = strings.ToLower(norm.NFC.String(s))
	s = strings.NewReplacer("’", "'", "‘", "'", "`", "'", "ё", "е").Replace(s)
	return strings.Join(strings.Fields(s), " ")
}
