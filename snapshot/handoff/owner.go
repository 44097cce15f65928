package handoff

import (
	"strings"
	"time"
)

// sessionWord starts the marker comment that names a block's session
// (HO-9): `<!-- compact-guard session: <id> -->`.
const sessionWord = "compact-guard session:"

// SessionLine is the marker line handoff --template writes under the
// heading for the session it runs in (HO-9).
func SessionLine(sessionID string) string {
	return "<!-- " + sessionWord + " " + sessionID + " -->"
}

// sessionOf reads a marker line: the session id it names, "" when the line
// is no marker. The id is one word: a comment holding more is no marker.
func sessionOf(trimmed string) string {
	inner, ok := strings.CutPrefix(trimmed, "<!--")
	if !ok {
		return ""
	}
	if inner, ok = strings.CutSuffix(inner, "-->"); !ok {
		return ""
	}
	id, ok := strings.CutPrefix(strings.TrimSpace(inner), sessionWord)
	if !ok {
		return ""
	}
	f := strings.Fields(id)
	if len(f) != 1 {
		return ""
	}
	return f[0]
}

// Claim is a block a session's `handoff --check` accepted although it
// names no session (HO-10): the state file's path, the block's heading and
// date, which together tell it apart from every other block, and when it
// was claimed. watch keeps a session's claims in its state.
type Claim struct {
	Path    string    `json:"path"`
	Heading string    `json:"heading"`
	Time    time.Time `json:"time"`
	At      time.Time `json:"at"`
}

// Claims reports whether the claim names block b of the state file at path.
func (c Claim) Claims(path string, b *Block) bool {
	return b != nil && c.Path == path && c.Heading == b.Heading && c.Time.Equal(b.Time)
}

// Whose says whose block b is for session sid (HO-10).
type Whose int

const (
	// Mine: the block names sid, or names no session and sid claimed it.
	Mine Whose = iota
	// Unclaimed: the block names no session and sid has not claimed it;
	// sid's handoff --check may.
	Unclaimed
	// Others: the block names another session.
	Others
)

// Owner says whose block b of the state file at path is for session sid,
// given sid's claims (HO-10).
func Owner(b *Block, sid, path string, claims []Claim) Whose {
	switch {
	case b.Session == sid && sid != "":
		return Mine
	case b.Session != "":
		return Others
	}
	for _, c := range claims {
		if c.Claims(path, b) {
			return Mine
		}
	}
	return Unclaimed
}

// ForSession is the newest of the blocks that are session sid's (HO-2,
// HO-10), nil for none, and how many of the blocks are not its own: those
// of other sessions and those that name none and were not claimed.
func ForSession(blocks []Block, sid, path string, claims []Claim) (mine *Block, others int) {
	var own []Block
	for i := range blocks {
		if Owner(&blocks[i], sid, path, claims) == Mine {
			own = append(own, blocks[i])
		} else {
			others++
		}
	}
	return Newest(own), others
}

// Kinds of the moment a handoff must not be older than (HO-4, HO-11).
const (
	// SinceCrossing: the handoff threshold's crossing in the current
	// episode.
	SinceCrossing = "crossing"
	// SinceCompaction: the start of the episode, the fill's fall after the
	// session's last compaction, with no crossing since.
	SinceCompaction = "compaction"
	// SinceSnapshot: the session's previous snapshot (precompact only, when
	// watch kept no state).
	SinceSnapshot = "snapshot"
	// SinceStart: the session's first transcript entry.
	SinceStart = "start"
	// SinceUnknown: nothing tells when the session began (no watch state,
	// no transcript found); a block not marked with its id must then be
	// fresh (HO-13).
	SinceUnknown = "unknown"
)

// FreshFor is how old a block not marked with the session's id may be when
// nothing tells when the session began (HO-13): an agent appends the
// template and fills it in within minutes; a block older than this may be
// anyone's — one committed months ago is no one's plan.
const FreshFor = time.Hour

// Fresh is the bound of HO-13: FreshFor before now.
func Fresh(now time.Time) Since {
	return Since{At: now.Add(-FreshFor), Kind: SinceUnknown}
}

// Since is what a handoff block must not be older than, and what that
// moment was, so that nothing calls it a crossing that was none (HO-4).
type Since struct {
	At   time.Time
	Kind string
}

// IsZero reports whether nothing bounds the block's date.
func (s Since) IsZero() bool { return s.At.IsZero() }
