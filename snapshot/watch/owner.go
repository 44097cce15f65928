package watch

import (
	"time"

	"github.com/compact-guard/compact-guard/snapshot/handoff"
)

// maxClaims bounds the handoff blocks a state remembers as claimed.
const maxClaims = 10

// Ownership is what a session's state says of whose handoff blocks are its
// own (WA-30): when the session started (its transcript's first entry,
// TR-61), so that no block older than the session counts (HO-11), and the
// blocks naming no session that its handoff --check accepted (HO-10).
type Ownership struct {
	Started time.Time       `json:"started,omitempty"`
	Claims  []handoff.Claim `json:"claims,omitempty"`
}

// Claim records that the session's handoff --check accepted block b of the
// state file at path; it reports whether that changed anything. The oldest
// claims go beyond maxClaims.
func (o *Ownership) Claim(path string, b *handoff.Block, at time.Time) bool {
	for _, c := range o.Claims {
		if c.Claims(path, b) {
			return false
		}
	}
	o.Claims = append(o.Claims, handoff.Claim{Path: path, Heading: b.Heading, Time: b.Time.UTC(), At: at.UTC()})
	if n := len(o.Claims); n > maxClaims {
		o.Claims = o.Claims[n-maxClaims:]
	}
	return true
}

// Bound is what a handoff of the session must not be older than, and what
// that moment was (HO-4, HO-11): the handoff threshold's crossing in the
// current episode (the earliest crossing), else the episode's start (the
// fill's fall after the last compaction: a compaction, and no crossing
// since), else the session's start; zero when none is known. started is
// the session's start when the state holds none (read from the transcript
// by the caller), zero for unknown.
func (s *State) Bound(started time.Time) handoff.Since {
	if s != nil {
		var first time.Time
		for _, c := range s.Crossings {
			if first.IsZero() || c.At.Before(first) {
				first = c.At
			}
		}
		switch {
		case !first.IsZero():
			return handoff.Since{At: first, Kind: handoff.SinceCrossing}
		case !s.Episode.IsZero():
			return handoff.Since{At: s.Episode, Kind: handoff.SinceCompaction}
		case !s.Started.IsZero():
			return handoff.Since{At: s.Started, Kind: handoff.SinceStart}
		}
	}
	if !started.IsZero() {
		return handoff.Since{At: started, Kind: handoff.SinceStart}
	}
	return handoff.Since{}
}

// claims is the session's claims, none for no state.
func (s *State) claims() []handoff.Claim {
	if s == nil {
		return nil
	}
	return s.Claims
}
