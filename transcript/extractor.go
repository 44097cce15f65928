package transcript

import "github.com/compact-guard/compact-guard/transcript/facts"

// Extractor turns transcript lines, fed in file order, into Facts. It keeps
// only the bounded facts and the pending tool calls, never a line: Feed may be
// given a buffer that is reused afterwards. The zero value is not usable;
// call NewExtractor.
type Extractor struct {
	b     *facts.Builder
	lines facts.LineHandler // the format's line handler, feeding b
}

// NewExtractor returns an Extractor for Claude Code's transcripts that
// continues from seed, the facts of an earlier reading of the same session
// (nil: start empty). Seed's prompts, files, commands, todos, tasks,
// failures, plan, compaction count, cwd, git branch, last time and totals
// are carried forward (totals at least the lengths of its lists, for a seed
// that predates them); its usage and stats are not.
func NewExtractor(seed *Facts) *Extractor { return NewExtractorFor(FormatClaude, seed) }

// NewExtractorFor returns an Extractor for transcripts of format f that
// continues from seed, as NewExtractor does for Claude Code's; an unknown
// format is read as Claude Code's.
func NewExtractorFor(f Format, seed *Facts) *Extractor {
	b := facts.NewBuilder(seed)
	return &Extractor{b: b, lines: f.reader().Lines(b)}
}

// Feed takes one line of the transcript, without its '\n' (a trailing '\r'
// is ignored). Blank lines are ignored; a line longer than MaxLineBytes is
// counted as skipped without being looked at; a line that is not JSON is
// counted as corrupt.
func (x *Extractor) Feed(line []byte) { x.feed(line, false) }

// FeedLast takes the final line of a transcript when it has no '\n': it is
// used like any line when it is complete JSON, and otherwise treated as torn
// (the writer was mid-line) and flagged in Stats.TornLastLine, not counted as
// corrupt.
func (x *Extractor) FeedLast(line []byte) { x.feed(line, true) }

// SkipLong counts a line over MaxLineBytes that the caller passed over
// without reading it.
func (x *Extractor) SkipLong() {
	x.b.SkipLong()
}

func (x *Extractor) feed(line []byte, last bool) {
	if len(line) > MaxLineBytes {
		x.SkipLong()
		return
	}
	x.b.CountLine()
	x.lines.Line(line, last)
}

// Facts returns what has been extracted so far, as a fresh value the caller
// may keep; the Extractor can go on being fed.
func (x *Extractor) Facts() *Facts { return x.b.Facts() }
