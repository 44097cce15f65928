package snapshot

import "time"

// How a compaction was prepared (Preparation.Kind, specs/watch.md WA-12).
const (
	// Planned: a current handoff block existed when precompact ran.
	Planned = "planned"
	// Emergency: the client compacted by itself and no handoff was current.
	Emergency = "emergency"
	// Unplanned: the user compacted (or the trigger is unknown) with no
	// current handoff.
	Unplanned = "unplanned"
)

// Preparation is what precompact knew of how the compaction was prepared:
// the context fill and window, the thresholds the fill had crossed and
// when (from the watch state), and the handoff block found in the state
// file. It tells a planned compaction from an emergency (WA-12, SF-20).
type Preparation struct {
	Kind string `json:"kind"`
	// Fill is the context fill at precompact; Window and AutoAt the window
	// and the auto-compaction point as watch infers them (0: unknown).
	Fill   int64 `json:"fill,omitempty"`
	Window int64 `json:"window,omitempty"`
	AutoAt int64 `json:"auto_at,omitempty"`
	// Watched says a watch state of the session existed.
	Watched bool `json:"watched"`
	// Crossings are the thresholds crossed since the last compaction.
	Crossings []Crossed `json:"crossings,omitempty"`
	// Since is what a handoff had to be newer than: the handoff
	// threshold's crossing, else the start of the watch episode or the
	// previous snapshot's time; zero when nothing bounded it.
	Since time.Time `json:"since,omitempty"`
	// SinceKind says what Since was (SF-12, handoff.md HO-4): "crossing",
	// "compaction" (the fill's fall after the last compaction, no crossing
	// since), "snapshot" (the previous snapshot) or "start" (the session's
	// first transcript entry); "" in records written before it.
	SinceKind string `json:"since_kind,omitempty"`
	// Handoff is the newest handoff block of this session in the state
	// file (handoff.md HO-10), nil for none; OtherBlocks counts the blocks
	// there that are not its own (another session's, or naming none and
	// not claimed by it).
	Handoff     *HandoffRef `json:"handoff,omitempty"`
	OtherBlocks int         `json:"other_blocks,omitempty"`
}

// Crossed is a threshold the context fill crossed, and when.
type Crossed struct {
	Tokens int64     `json:"tokens"`
	At     time.Time `json:"at"`
}

// HandoffRef names a handoff block: its file, line, heading and date, and
// whether it was complete and current (specs/handoff.md HO-3, HO-4).
type HandoffRef struct {
	Path     string    `json:"path"`
	Line     int       `json:"line"`
	Heading  string    `json:"heading"`
	Time     time.Time `json:"time"`
	Complete bool      `json:"complete"`
	Current  bool      `json:"current"`
	// NextStep is the block's NEXT STEP section (handoff.Block.Next),
	// redacted like every free text of the record (RedactPreparation).
	NextStep string `json:"next_step,omitempty"`
}

// CurrentNextStep is the NEXT STEP of the handoff block when that block was
// current for this compaction (a planned compaction, WA-12), else "": the
// summary hint quotes it (PC-28) and the residue hands it back (RS-4).
func (p *Preparation) CurrentNextStep() string {
	if p == nil || p.Handoff == nil || !p.Handoff.Current {
		return ""
	}
	return p.Handoff.NextStep
}

// Kind classifies a compaction by its trigger and whether a handoff was
// current.
func Kind(trigger string, handoffCurrent bool) string {
	switch {
	case handoffCurrent:
		return Planned
	case trigger == "auto":
		return Emergency
	}
	return Unplanned
}

// Percent is the fill as a whole percentage of the window, -1 when either
// is unknown.
func (p *Preparation) Percent() int64 {
	if p == nil || p.Window <= 0 || p.Fill <= 0 {
		return -1
	}
	return p.Fill * 100 / p.Window
}
