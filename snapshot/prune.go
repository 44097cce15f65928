package snapshot

// Pruning the snapshot folder (SF-41 to SF-43, SF-69) and cleaning what
// killed processes left in it (SF-36), moved out of store.go when it grew.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// prune removes every snapshot after the newest Keep, except the one this
// Save just wrote, and .md files left without their .json for longer than
// orphanAfter. Newest is by the clock (Entries' order): names dated more
// than MaxAhead ahead of it go first, so that a folder full of them never
// costs a real snapshot, another session's included (SF-41, SF-69). It removes a snapshot's .json first, so that it stops
// counting as a snapshot at once, then its .md. Files already removed by a
// process pruning at the same time are not errors (SF-41 to SF-43).
func (s *Store) prune(justSaved string) []string {
	var warnings []string
	es, err := s.Entries()
	if err != nil {
		return []string{fmt.Sprintf("prune: %v", err)}
	}
	remove := func(path string) {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			warnings = append(warnings, fmt.Sprintf("prune: %v", err))
		}
	}
	live := map[string]bool{}
	saver := ""
	if n, ok := ParseName(justSaved); ok {
		saver = n.SID8
	}
	now := s.now()
	seen := map[string]bool{} // sessions (by sid8) whose newest was met
	for i, e := range es {
		newest := !seen[e.SID8]
		seen[e.SID8] = true
		// Another session's newest snapshot, taken within PendingFor, may
		// still be its compaction's: one session's saves do not push it
		// out (SF-70).
		pending := newest && e.SID8 != saver && !e.Ahead && now.Sub(e.Time) <= PendingFor
		if i < s.keep() || e.Name == justSaved || pending {
			live[e.Name] = true
			continue
		}
		s.removeSnapshot(e, remove)
	}
	des, err := os.ReadDir(s.Dir)
	if err != nil {
		return append(warnings, fmt.Sprintf("prune: %v", err))
	}
	jsons := map[string]bool{}
	for _, de := range des {
		if base, ok := strings.CutSuffix(de.Name(), ".json"); ok {
			jsons[base] = true
		}
	}
	for _, de := range des {
		// A .md, a delivery or a residue record left without its .json (a
		// Save or a prune killed half way) goes after orphanAfter.
		base, ok := strings.CutSuffix(de.Name(), ".md")
		if !ok {
			base, ok = strings.CutSuffix(de.Name(), DeliverySuffix)
		}
		if !ok {
			base, ok = strings.CutSuffix(de.Name(), ResidueSuffix)
		}
		if !ok || jsons[base] || live[base] || !de.Type().IsRegular() {
			continue
		}
		if _, ok := ParseName(base); !ok {
			continue
		}
		if fi, err := de.Info(); err == nil && now.Sub(fi.ModTime()) > orphanAfter {
			remove(filepath.Join(s.Dir, de.Name()))
		}
	}
	return warnings
}

// PendingFor is how long another session's newest snapshot is kept past
// Keep (SF-70): selection hands out a snapshot no older than that
// (selectsnap.DefaultMaxAge, SS-2), so until then it may still be the one
// its session's compaction gets.
const PendingFor = 30 * time.Minute

// removeSnapshot removes snapshot e: its .json first, so that it stops
// counting at once, then its .md, delivery and residue records (SF-42).
func (s *Store) removeSnapshot(e Entry, remove func(string)) {
	remove(e.JSONPath)
	remove(filepath.Join(s.Dir, e.Name+".md"))
	remove(DeliveryPath(s.Dir, e.Name))
	remove(ResiduePath(s.Dir, e.Name))
}

// Supersede removes the snapshots that rec, just saved, replaces: those of
// its session (the id byte for byte), made from the same transcript, in
// the same segment (no compaction since: the same coverage.segment_start),
// by the same hook event, older than rec and never handed out (no delivery
// record). It is for a client whose hook runs before compactions that do
// not happen — Gemini CLI's PreCompress before every model request: only
// the newest of them can be the next compaction's, so a session keeps one
// snapshot per compaction (SF-71). It returns warnings, as pruning does.
func (s *Store) Supersede(rec *Record) []string {
	es, err := s.Entries()
	if err != nil {
		return []string{fmt.Sprintf("supersede: %v", err)}
	}
	var warnings []string
	remove := func(path string) {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			warnings = append(warnings, fmt.Sprintf("supersede: %v", err))
		}
	}
	sid8 := SID8(rec.SessionID)
	for _, e := range es {
		if e.SID8 != sid8 || e.Name == rec.Name {
			continue
		}
		old, err := s.Load(e.Name)
		if err != nil || old.SessionID != rec.SessionID || old.TranscriptPath != rec.TranscriptPath ||
			old.HookEvent != rec.HookEvent || old.Coverage.SegmentStart != rec.Coverage.SegmentStart ||
			!old.CreatedAt.Before(rec.CreatedAt) {
			continue
		}
		if d, derr := ReadDelivery(s.Dir, e.Name, rec.SessionID); d != nil || derr != nil {
			continue // handed out, or cannot tell: kept
		}
		s.removeSnapshot(e, remove)
	}
	return warnings
}

// cleanStale removes temp files and reservations left by killed processes.
func (s *Store) cleanStale() []string {
	return cleanStaleIn(s.Dir, s.now())
}

func cleanStaleIn(dir string, now time.Time) []string {
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var warnings []string
	for _, de := range des {
		n := de.Name()
		if !strings.HasPrefix(n, tempPrefix) && !strings.HasPrefix(n, reservePrefix) {
			continue
		}
		fi, err := de.Info()
		if err != nil || now.Sub(fi.ModTime()) <= staleAfter {
			continue
		}
		if err := os.Remove(filepath.Join(dir, n)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			warnings = append(warnings, fmt.Sprintf("remove stale %s: %v", n, err))
		}
	}
	return warnings
}
