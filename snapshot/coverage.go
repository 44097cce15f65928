package snapshot

// GapKind says how a part of the transcript came to be missing from a
// record's facts (SF-8).
type GapKind int

const (
	// GapBefore: part of the bytes before From was neither read nor covered
	// by a previous snapshot (coverage.partial: the byte budget, or a
	// partial chain).
	GapBefore GapKind = iota
	// GapBetween: the bytes [From, To) were not read, because the deadline
	// left time to read newer bytes first (a range of coverage.unread).
	GapBetween
	// GapAfter: reading stopped at From, before the end To
	// (coverage.incomplete with read_to); From 0 means nothing was read.
	GapAfter
	// GapEnd: reading stopped before the end, at an offset the record does
	// not hold (coverage.incomplete in a record written before read_to).
	GapEnd
)

// Gap is one part of the transcript a record's facts miss.
type Gap struct {
	Kind     GapKind
	From, To int64
}

// Gaps lists, in file order, the parts of the transcript the record's facts
// miss; none when the facts rest on every byte up to transcript_size. show
// and the pointer say them, so that an empty list in a record read in part
// never reads as "there was nothing".
func (c Coverage) Gaps() []Gap {
	var gaps []Gap
	if c.Partial {
		gaps = append(gaps, Gap{Kind: GapBefore, To: c.ReadFrom})
	}
	for _, u := range c.Unread {
		if u.To > u.From {
			gaps = append(gaps, Gap{Kind: GapBetween, From: u.From, To: u.To})
		}
	}
	switch {
	case !c.Incomplete:
	case c.ReadTo == nil:
		gaps = append(gaps, Gap{Kind: GapEnd, To: c.TranscriptSize})
	default:
		gaps = append(gaps, Gap{Kind: GapAfter, From: *c.ReadTo, To: c.TranscriptSize})
	}
	return gaps
}
