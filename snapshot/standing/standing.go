// Package standing picks, from a session's typed prompts, the standing
// instructions: what the user said that is meant to last beyond its step —
// a constraint ("don't touch the migrations"), a decision ("let's go with
// option B"), a preference ("I prefer tabs") or a correction ("no, the API
// returns seconds"). Compaction keeps the gist of a session and drops such
// words, and the rule typed forty prompts ago is not among the last five
// prompts the snapshot keeps anyway; so they are chosen from the whole
// session, by cue words (specs/standing.md ST-1 to ST-9), each with the
// rule that chose it so that a choice can be explained, and each with the
// later instruction that replaced it when the user said the same subject
// again differently.
//
// Selection reads only the prompts' first ScanChars characters, so a
// prompt costs the same however long it is (about 0.1 ms on a busy
// two-core machine, `go test -bench Select ./snapshot/standing/`): it runs
// inside precompact.
package standing

import (
	"time"

	"github.com/compact-guard/compact-guard/transcript/textcut"
)

// Prompt is one typed prompt of the session, as the transcript readers give
// it; Index is its place among the session's typed prompts, from 0.
type Prompt struct {
	Text  string
	Time  time.Time
	Index int
}

// Kind is what sort of lasting statement an instruction is.
type Kind string

// The kinds of standing instruction (ST-2 to ST-5).
const (
	Constraint Kind = "constraint"
	Decision   Kind = "decision"
	Preference Kind = "preference"
	Correction Kind = "correction"
)

// MaxChars is how many characters of a prompt an instruction keeps; a
// longer one is cut there, marked with textcut.Marker, and says its length
// (ST-10).
const MaxChars = 600

// Instruction is one standing instruction: the prompt's words verbatim (cut
// at MaxChars), why it was chosen, and what replaced it.
type Instruction struct {
	// Index and Time are the prompt's.
	Index int
	Time  time.Time
	// Text is the prompt's text, cut at MaxChars characters and then ending
	// in textcut.Marker; Cut says it was, Chars is the whole text's length
	// in characters, so that the point of the cut can be said ("600 of
	// 1,840 characters").
	Text  string
	Cut   bool
	Chars int
	// Kind and Rule say why it was chosen: the clause (ST-n) whose cue
	// matched, and Cue the words it matched, as the prompt has them.
	Kind Kind
	Rule string
	Cue  string
	// ReplacedBy is the Index of the later instruction that said the same
	// subject again (ST-11), -1 when none did: a replaced instruction goes
	// out with its replacement or not at all.
	ReplacedBy int
}

// Select returns the standing instructions among prompts, in the prompts'
// order, each marked with what replaced it. prompts must be in the order
// they were typed.
func Select(prompts []Prompt) []Instruction {
	var out []Instruction
	var subjects []subject
	for _, p := range prompts {
		m, ok := match(p.Text)
		if !ok {
			continue
		}
		text, cut := textcut.Runes(p.Text, MaxChars)
		in := Instruction{
			Index: p.Index, Time: p.Time,
			Text: textcut.Marked(text, cut), Cut: cut, Chars: runeCount(p.Text),
			Kind: m.kind, Rule: m.rule, Cue: m.cue,
			ReplacedBy: -1,
		}
		s := subjectOf(p.Text)
		for i := range out {
			if out[i].ReplacedBy < 0 && subjects[i].sameAs(s) {
				out[i].ReplacedBy = p.Index
			}
		}
		out = append(out, in)
		subjects = append(subjects, s)
	}
	return out
}

// Standing returns the instructions no later one replaced.
func Standing(all []Instruction) []Instruction {
	var out []Instruction
	for _, in := range all {
		if in.ReplacedBy < 0 {
			out = append(out, in)
		}
	}
	return out
}

// Explain says in one line why an instruction was chosen, for show and the
// log: the clause and the words that matched.
func (in Instruction) Explain() string {
	return in.Rule + " " + string(in.Kind) + ": “" + in.Cue + "”"
}

func runeCount(s string) int {
	n := 0
	for range s {
		n++
	}
	return n
}
