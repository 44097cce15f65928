package audit

import (
	"context"
	"strings"
	"time"

	gemini "github.com/compact-guard/compact-guard/clients/gemini/reader"
	"github.com/compact-guard/compact-guard/selectsnap"
	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/transcript"
)

// ReadSession reads one transcript's compactions and matches each with
// the snapshot taken for it and the pointer recorded after it, in the
// terms of the client that wrote it (AU-3, AU-15, AU-16).
func ReadSession(path string, st *snapshot.Store, entries []snapshot.Entry, maxRead int64) Session {
	if gemini.IsChatPath(path) {
		return readGeminiSession(path, st, entries) // AU-26
	}
	s := Session{SessionID: sessionID(transcript.FormatClaude, path), Transcript: path, Compactions: []Compaction{}}
	f, err := transcript.Open(path)
	if err != nil {
		s.Error = err.Error()
		return s
	}
	defer f.Close()
	format, _ := f.Format()
	s.Agent = format
	s.SessionID = sessionID(format, path)
	sid := s.SessionID
	s.ReadFrom = max(0, f.Size()-maxRead)
	s.Partial = s.ReadFrom > 0
	ctx, cancel := context.WithTimeout(context.Background(), Deadline)
	defer cancel()
	read, err := readCompactions(ctx, f, s.ReadFrom)
	if err != nil {
		s.Error = err.Error()
		return s
	}
	comps := read.comps
	if read.stopped {
		// AU-12: what was read whole is reported, and where reading stopped.
		s.ReadFrom, s.Partial, s.Stopped = read.from, true, true
	}
	records := sessionRecords(st, entries, sid)
	inFolder := map[string]bool{}
	for _, e := range entries {
		inFolder[e.Name] = true
	}
	handed := handedOut(st, records, sid)
	prev := s.ReadFrom - 1
	if !s.Partial {
		prev = -1
	}
	taken := takenFor(records, path, comps, prev)
	cuts := handOutCuts(comps, taken)
	var prevTime time.Time // of the boundary before, zero for none known
	for i, c := range comps {
		a := Compaction{Index: i + 1, Time: c.Time, Trigger: c.Trigger, PreTokens: c.PreTokens, Delivered: "unknown"}
		if c.Version != "" {
			s.Version = c.Version
		}
		if r := taken[i]; r != nil {
			a.Snapshot = r.Name
			if a.Trigger == "" {
				// AU-18: Codex CLI and Qwen Code write no trigger into the
				// transcript; the hook's payload gave it to the snapshot.
				a.Trigger = r.Trigger
			}
		}
		end := f.Size()
		if i+1 < len(comps) {
			end = comps[i+1].Offset
		}
		if format != transcript.FormatClaude {
			// Claude Code records the context's text: its transcript says
			// what was given.
			a.Handed, a.HandedEvent = handed.in(cuts[i], cuts[i+1])
		}
		if judge := clients[format].Delivered; judge != nil {
			judge(ctx, path, f, c, end, &a)
		} else {
			claudeDelivered(c, &a)
		}
		a.Own = a.Named != "" && a.Named == a.Snapshot
		if a.Named != "" && !a.Own && !inFolder[a.Named] {
			// AU-11: a snapshot pruned since is judged by its name and this
			// compaction's time window, not by its absence.
			var next time.Time
			if i+1 < len(comps) {
				next = comps[i+1].Time
			}
			a.Gone = true
			a.Own = a.Snapshot == "" && selectsnap.NameFits(a.Named, sid, prevTime, c.Time, next)
		}
		a.Foreign = a.Named != "" && !a.Own && !(a.Gone && c.Time.IsZero())
		if st != nil {
			a.Residue = readResidue(ctx, st.Dir, f, c, records, a.Snapshot, sid)
		}
		s.Compactions = append(s.Compactions, a)
		prevTime = c.Time
	}
	return s
}

// sessionRecords are the snapshots of session sid in the folder.
func sessionRecords(st *snapshot.Store, entries []snapshot.Entry, sid string) []*snapshot.Record {
	var records []*snapshot.Record
	sid8 := snapshot.SID8(sid)
	for _, e := range entries {
		if e.SID8 != sid8 {
			continue
		}
		if r, err := st.Load(e.Name); err == nil && r.SessionID == sid {
			records = append(records, r)
		}
	}
	return records
}

// claudeDelivered judges Claude Code's record of the SessionStart context
// (AU-3): the text of each hook_additional_context after the boundary.
func claudeDelivered(c transcript.Compaction, a *Compaction) {
	a.Contexts = len(c.Contexts)
	for _, text := range c.Contexts {
		if name := selectsnap.NamedSnapshot(text); name != "" {
			a.Delivered, a.Named = "yes", name
		} else if strings.Contains(text, "compact-guard") {
			a.Delivered, a.Notice = "yes", true
		}
	}
	if a.Delivered == "unknown" && c.HookRecords > 0 {
		a.Delivered = "no"
	}
	if a.Delivered == "yes" && c.Version != "" && !selectsnap.RecordsContext(c.Version) {
		// Recorded, but such a release sends it only while the same
		// process goes on: after --resume the model never sees it.
		a.Delivered = "unknown"
	}
}

// takenFor is the snapshot taken for each compaction (SS-14), prev the
// offset before the first one read.
func takenFor(records []*snapshot.Record, path string, comps []transcript.Compaction, prev int64) []*snapshot.Record {
	out := make([]*snapshot.Record, len(comps))
	var prevTime time.Time
	for i, c := range comps {
		out[i] = selectsnap.TakenFor(records, path, prevTime, c.Time, prev, c.Offset)
		prev, prevTime = c.Offset, c.Time
	}
	return out
}

// handOutCuts are the times that part the hand-outs among the compactions
// (AU-17): compaction i's are those made in (cuts[i], cuts[i+1]], from
// when its snapshot was taken (PreCompact, before the compaction; else its
// boundary's time) until the next compaction's; the last cut is zero, no
// end. Times, not transcript offsets: Qwen Code's SessionStart(compact)
// runs in the background and may read the chat before the client wrote
// the boundary (E2E-24).
func handOutCuts(comps []transcript.Compaction, taken []*snapshot.Record) []time.Time {
	cuts := make([]time.Time, len(comps)+1)
	for i, c := range comps {
		cuts[i] = c.Time
		if taken[i] != nil {
			cuts[i] = taken[i].CreatedAt
		}
	}
	return cuts
}

// handOut is one delivery record of the session: the snapshot a
// compaction hook (or watch, late) handed out, and when.
type handOut struct {
	name, event string
	at          time.Time
}

type handOuts []handOut

// handedOut reads the delivery records of the session's snapshots
// (snapshot-format.md SF-53), those the user can trust only.
func handedOut(st *snapshot.Store, records []*snapshot.Record, sid string) handOuts {
	if st == nil {
		return nil
	}
	var out handOuts
	for _, r := range records {
		d, err := snapshot.ReadDelivery(st.Dir, r.Name, sid)
		if err != nil || d == nil || d.At.IsZero() {
			continue
		}
		out = append(out, handOut{name: r.Name, event: d.Event, at: d.At})
	}
	return out
}

// in is the snapshot handed out in (from, to] (to zero: no end), the
// newest such hand-out when there are several; none when from is zero (a
// compaction whose time is not known).
func (hs handOuts) in(from, to time.Time) (name, event string) {
	if from.IsZero() {
		return "", ""
	}
	var best time.Time
	for _, h := range hs {
		if h.at.After(from) && (to.IsZero() || !h.at.After(to)) && h.at.After(best) {
			best, name, event = h.at, h.name, h.event
		}
	}
	return name, event
}
