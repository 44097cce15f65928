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
	for i, e := range es {
		if i < s.keep() || e.Name == justSaved {
			live[e.Name] = true
			continue
		}
		remove(e.JSONPath)
		remove(filepath.Join(s.Dir, e.Name+".md"))
		remove(DeliveryPath(s.Dir, e.Name))
		remove(ResiduePath(s.Dir, e.Name))
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
	now := s.now()
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
