package snapshot

// The Markdown's notes on how complete the snapshot is, and the escaping
// every text taken from the transcript, git or the payload goes through;
// split from render.go by topic.

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// notes says what the record rests on. Without --full only what is out of
// the ordinary is said, and where everything is.
func (w *mdWriter) notes(r *Record) {
	w.heading(2, w.t("Notes"))
	w.item(0, w.t("Transcript: %s", w.orUnknown(r.TranscriptPath)))
	c := r.Coverage
	if w.full {
		switch {
		case c.ReadTo != nil:
			w.item(0, w.t("Read from byte %d to byte %d of %d.", c.ReadFrom, *c.ReadTo, c.TranscriptSize))
		case !c.Incomplete:
			w.item(0, w.t("Read from byte %d to byte %d of %d.", c.ReadFrom, c.TranscriptSize, c.TranscriptSize))
		default:
			w.item(0, w.t("Read from byte %d of %d; where reading stopped is not recorded.", c.ReadFrom, c.TranscriptSize))
		}
		switch {
		case c.SegmentStart >= 0:
			w.item(0, w.t("The last compaction boundary starts at byte %d.", c.SegmentStart))
		case !c.BoundaryUnknown:
			w.item(0, w.t("The transcript holds no compaction boundary."))
		}
		if c.Previous != "" {
			w.item(0, w.t("The part before byte %d is covered by the previous snapshot %s.", c.ReadFrom, w.code(c.Previous)))
		}
	}
	if c.BoundaryUnknown {
		w.item(0, w.t("The search for the last compaction boundary was cut short by the deadline: where the last segment starts is unknown, and the count of earlier compactions is a lower bound."))
	}
	if c.Partial {
		w.item(0, w.t("Coverage is partial: part of the transcript before byte %d was neither read nor covered by a previous snapshot.", c.ReadFrom))
	}
	for _, u := range c.Unread {
		w.item(0, w.t("Bytes %d to %d were not read: the deadline left time to read the newest bytes first.", u.From, u.To))
	}
	switch {
	case c.Incomplete && c.ReadTo != nil:
		w.item(0, w.t("Reading stopped at byte %d of %d: no later snapshot continues from this one.", *c.ReadTo, c.TranscriptSize))
	case c.Incomplete:
		w.item(0, w.t("The transcript was not read to its end: no later snapshot continues from this one."))
	}
	st := r.Stats
	if w.full {
		w.item(0, w.t("Lines: %d read, %d decoded.", st.Lines, st.Decoded))
		if u := r.Context; u != nil && !u.FromBoundary {
			w.item(0, w.t("Context tokens: input %d, cache creation %d, cache read %d.", u.InputTokens, u.CacheCreation, u.CacheRead))
		}
	}
	if st.SkippedLong > 0 {
		w.item(0, w.t("Lines skipped as too long: %d.", st.SkippedLong))
	}
	if st.Corrupt > 0 {
		w.item(0, w.t("Corrupt lines skipped: %d.", st.Corrupt))
	}
	if st.TornLastLine {
		w.item(0, w.t("The last line was torn (still being written) and was skipped."))
	}
	sf := r.StateFile
	name := sf.Name
	if name == "" {
		name = "SESSION-STATE.md"
	}
	switch {
	case sf.Path != "" && !sf.ModTime.IsZero():
		w.item(0, w.t("State file: %s, modified %s.", w.code(sf.Path), w.when(sf.ModTime)))
	case sf.Path != "":
		w.item(0, w.t("State file: %s.", w.code(sf.Path)))
	default:
		w.item(0, w.t("No %s found.", w.code(name)))
		for _, d := range sf.Searched {
			w.item(1, w.t("Looked in %s", w.code(d)))
		}
		if sf.Unanswered != "" {
			w.item(1, w.t("Not looked in %s and the folders after it: its file system did not answer by the deadline", w.code(sf.Unanswered)))
		}
	}
	if w.full || r.Redactions > 0 {
		w.item(0, w.t("Secrets redacted: %d.", r.Redactions))
	}
	if len(r.Warnings) > 0 {
		w.item(0, w.t("Warnings:"))
		for _, s := range r.Warnings {
			w.item(1, w.code(s))
		}
	}
	w.recordNotes(r)
}

// recordNotes are the last notes: the hook and prompt a full rendering
// names, whether PostCompact confirmed the compaction, and the record.
func (w *mdWriter) recordNotes(r *Record) {
	if w.full && r.HookEvent != "" {
		w.item(0, w.t("Hook event: %s.", w.code(r.HookEvent)))
	}
	if w.full && r.PromptID != "" {
		w.item(0, w.t("Prompt id: %s.", w.code(r.PromptID)))
	}
	if r.Compaction != nil {
		w.item(0, w.t("Compaction confirmed complete at %s (summary of %d characters).", w.when(r.Compaction.At), r.Compaction.SummaryChars))
	} else {
		w.item(0, w.t("Compaction not confirmed (no PostCompact record)."))
	}
	// The record's line comes last: a whole rendering ends with it.
	if r.Name != "" {
		if !w.full {
			w.item(0, w.t("Everything the record holds: %s.", inlineCode("compact-guard show --full "+r.Name)))
		}
		w.item(0, w.t("Record: %s, schema %d.", w.code(r.Name+".json"), r.Schema))
	}
}

// inlineCode renders untrusted text as one inline code span: control
// characters escaped (so it stays on one line), delimited by a backtick run
// longer than any inside it, padded with a space when the text starts or ends
// with a backtick or a space (CommonMark strips one of each).
func inlineCode(s string) string {
	s = escapeInline(s)
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.Trim(s, " ") != "" && (s[0] == '`' || s[len(s)-1] == '`' || s[0] == ' ' || s[len(s)-1] == ' ') {
		s = " " + s + " "
	}
	return fence + s + fence
}

func longestRun(s string, c byte) int {
	best, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}

// escapeInline escapes everything that could end a line or hide text:
// newlines and tabs included.
func escapeInline(s string) string { return escapeText(s, false) }

// escapeBlock keeps \n and \t (CRLF becomes \n) and escapes every other
// control character, since a lone \r also ends a line in Markdown.
func escapeBlock(s string) string {
	return escapeText(strings.ReplaceAll(s, "\r\n", "\n"), true)
}

func escapeText(s string, multiline bool) string {
	if !needsEscape(s, multiline) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case multiline && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case escapedRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func needsEscape(s string, multiline bool) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			return true
		}
		if r < 0x20 || r == 0x7f || escapedRune(r) {
			if !(multiline && (r == '\n' || r == '\t')) {
				return true
			}
		}
		i += size
	}
	return false
}

// escapedRune reports the non-ASCII characters shown as \uXXXX: C1
// controls, the Unicode line and paragraph separators, and the bidirectional
// embedding, override and isolate controls that can make text read in
// another order than it is stored.
func escapedRune(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x2028 || r == 0x2029:
		return true
	case r >= 0x202a && r <= 0x202e:
		return true
	case r >= 0x2066 && r <= 0x2069:
		return true
	case r == 0xfeff:
		return true
	}
	return false
}
