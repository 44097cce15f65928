package watch

import (
	"time"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/snapshot/handoff"
)

// PrepareInput is what precompact knows when it records how a compaction
// was prepared.
type PrepareInput struct {
	// Trigger is the payload's ("manual", "auto").
	Trigger string
	// State is the session's watch state, nil when there is none.
	State *State
	// Fill and Model are the record's context fill.
	Fill  int64
	Model string
	// Window gives the environment and settings files the window is
	// inferred from (its Model and Fill are taken from above).
	Window WindowInput
	// ClientWindow is the context window the client itself recorded in the
	// transcript with the fill (Codex CLI's model_context_window, Qwen
	// Code's contextWindowSize), 0 when it records none (Claude Code): when
	// set it is the window, and Claude Code's inference (WA-2) is not made
	// for another client's session (WA-41).
	ClientWindow int64
	// StateFile is the state file's path ("" when none was found) and
	// Blocks its handoff blocks.
	StateFile string
	Blocks    []handoff.Block
	// Previous is the time of the session's previous snapshot, zero when
	// there is none.
	Previous time.Time
	// SessionID is the session's; Started its first transcript entry's
	// time (TR-61), zero when unknown: a block is the session's only when
	// it names it or was claimed by it (HO-10), and counts only when
	// written after the session started (HO-11).
	SessionID string
	Started   time.Time
	Now       time.Time
}

// Prepare says how a compaction was prepared (WA-12): the newest handoff
// block of this session (HO-10), whether it was current — newer than the
// handoff threshold's crossing, else than the watch episode's start, else
// than the previous snapshot, else than the session's start — and so
// whether the compaction was planned, an emergency or unplanned; with the
// fill, the window and the crossings for the pointer.
func Prepare(in PrepareInput) *snapshot.Preparation {
	wi := in.Window
	wi.Model, wi.Fill = in.Model, in.Fill
	w := InferWindow(wi)
	p := &snapshot.Preparation{Fill: in.Fill, Window: w.Tokens, AutoAt: w.AutoAt, Watched: in.State != nil}
	if in.ClientWindow > 0 {
		// The client's own figure (WA-41); its compaction point is the
		// client's rule, not Claude Code's, and is left unknown.
		p.Window, p.AutoAt = in.ClientWindow, 0
	}
	if in.Fill <= 0 {
		p.Window, p.AutoAt = 0, 0
	}
	since := in.State.Bound(time.Time{})
	if since.Kind == handoff.SinceStart || since.IsZero() {
		// The previous snapshot comes after the session's start.
		switch {
		case !in.Previous.IsZero():
			since = handoff.Since{At: in.Previous.UTC(), Kind: handoff.SinceSnapshot}
		case since.IsZero() && !in.Started.IsZero():
			since = handoff.Since{At: in.Started.UTC(), Kind: handoff.SinceStart}
		}
	}
	p.Since, p.SinceKind = since.At.UTC(), since.Kind
	if since.IsZero() {
		p.Since = time.Time{}
	}
	if in.State != nil {
		for _, c := range in.State.Crossings {
			p.Crossings = append(p.Crossings, snapshot.Crossed{Tokens: c.Tokens, At: c.At})
		}
	}
	current := false
	b, others := handoff.ForSession(in.Blocks, in.SessionID, in.StateFile, in.State.claims())
	p.OtherBlocks = others
	if b != nil {
		current = handoff.Current(b, p.Since, in.Now)
		p.Handoff = &snapshot.HandoffRef{Path: in.StateFile, Line: b.Line, Heading: b.Heading,
			Time: b.Time.UTC(), Complete: b.Complete(), Current: current, NextStep: b.Next}
	}
	p.Kind = snapshot.Kind(in.Trigger, current)
	return p
}
