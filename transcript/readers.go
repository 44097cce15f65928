package transcript

import "time"

// readers is the table of the formats read, one row per client, in the
// order DetectFormat asks them (TR-37): the first reader that recognises a
// line's top level decides. Claude Code's comes last, since any typed line
// is one of its entries; it is also the reader of a file whose start
// decides nothing.
var readers = []struct {
	format Format
	reader reader
}{
	{FormatCodex, codexReader{}},
	{FormatQwen, qwenReader{}},
	{FormatClaude, claudeReader{}},
}

// reader is what transcript needs of one client's format: how to tell its
// lines, how to turn them into facts, and how to find its compactions and
// model responses scanning backwards.
type reader interface {
	// detect reports whether a line whose first top-level "type" is typ
	// ("" for none) and whose top-level keys are keys was written by this
	// client.
	detect(typ string, keys map[string]bool) bool
	// lines returns the handler that turns the format's lines, fed in file
	// order, into facts built in b.
	lines(b *builder) lineHandler
	// boundary finds compaction boundaries; match returns the boundary's
	// id ("" for none: a boundary written twice is counted once by it) and
	// time.
	boundary() lineRule
	// response finds model responses; match returns the response's time.
	response() lineRule
}

// lineRule is what a backward scan looks for: a needle that every
// candidate line holds (the byte before it must be '"'), and the whole-line
// test, which returns the line's id and time.
type lineRule struct {
	needle []byte
	match  func(line []byte) (id string, t time.Time, ok bool)
}

// readerOf is the table's reader for f.
func readerOf(f Format) (reader, bool) {
	for _, row := range readers {
		if row.format == f {
			return row.reader, true
		}
	}
	return nil, false
}

// reader is f's reader, Claude Code's for an unknown format.
func (f Format) reader() reader {
	if r, ok := readerOf(f); ok {
		return r
	}
	return claudeReader{}
}
