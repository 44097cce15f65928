package transcript

import (
	"time"

	claude "github.com/compact-guard/compact-guard/clients/claude/reader"
	"github.com/compact-guard/compact-guard/transcript/facts"
)

// readers is the table of the formats read, one row per client, in the
// order DetectFormat asks them (TR-37): the first reader that recognises a
// line's top level decides. Each client's folder under clients/ registers
// its row (Register); Claude Code's, the baseline, is the table's own and
// stays last, since any typed line is one of its entries; it is also the
// reader of a file whose start decides nothing.
var readers = []struct {
	format Format
	reader Reader
}{
	{FormatClaude, claude.Reader{}},
}

// Register adds the reader of format f to the table, before Claude Code's
// row. It is called while the program starts (agent.Register), before any
// transcript is read.
func Register(f Format, r Reader) {
	last := readers[len(readers)-1]
	readers = append(readers[:len(readers)-1], struct {
		format Format
		reader Reader
	}{f, r}, last)
}

// A Reader reads the transcripts of one client: it tells the client's
// lines, turns them into facts, and finds its compactions and model
// responses for the backward scans. Each lives in its client's folder
// (clients/<name>/reader) and is one row of the readers table.
type Reader interface {
	// Detect reports whether a line whose first top-level "type" is typ
	// ("" for none) and whose top-level keys are keys was written by this
	// client.
	Detect(typ string, keys map[string]bool) bool
	// Lines returns the handler that turns the format's lines, fed in
	// file order, into facts built in b.
	Lines(b *facts.Builder) facts.LineHandler
	// Boundary finds compaction boundaries; its Match returns the
	// boundary's id ("" for none: a boundary written twice counts once by
	// it) and time.
	Boundary() facts.LineRule
	// Response finds model responses; its Match returns the response's
	// time.
	Response() facts.LineRule
}

// A FillReader is a Reader whose responses carry the context fill, which
// NewestFill reads back (TR-51); a format without one has no fill to read.
type FillReader interface {
	Reader
	// SkipHead reports, from the first bytes of a long line, that it is
	// neither a response nor a boundary.
	SkipHead(head []byte) bool
	// Candidate reports whether a line may be a response or a boundary.
	Candidate(line []byte) bool
	// Usage is a response line's fill, time and client release.
	Usage(line []byte) (u Usage, at time.Time, version string, ok bool)
	// BoundaryFill is a boundary line's fill after the compaction and its
	// time.
	BoundaryFill(line []byte) (tokens int64, at time.Time)
	// TypedPrompt reports whether a line is a prompt the user typed: where
	// a turn begins (FillBeforeTurn).
	TypedPrompt(line []byte) bool
}

// readerOf is the table's reader for f.
func readerOf(f Format) (Reader, bool) {
	for _, row := range readers {
		if row.format == f {
			return row.reader, true
		}
	}
	return nil, false
}

// reader is f's reader, Claude Code's for an unknown format.
func (f Format) reader() Reader {
	if r, ok := readerOf(f); ok {
		return r
	}
	return claude.Reader{}
}
