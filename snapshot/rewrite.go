package snapshot

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Rewrite replaces the snapshot r names with r, under the same name: the
// .md re-rendered in r's lang, then the .json, each atomically, so that a
// reader sees the old snapshot or the new one, never a part of either, and
// a pointer already handed out names the new one (PO-C18, SF-72). The
// record on disk must be of the same session and have the same created_at:
// Rewrite completes a snapshot, it never makes another one. A snapshot
// pruned meanwhile stays pruned (ErrNoSnapshot). Lists are normalised and
// the record fitted as Save fits it.
func (s *Store) Rewrite(r *Record) error {
	old, err := s.Load(r.Name)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: %s was removed", ErrNoSnapshot, r.Name)
	}
	if err != nil {
		return err
	}
	if old.SessionID != r.SessionID || !old.CreatedAt.Equal(r.CreatedAt) {
		return fmt.Errorf("%w: %s is not the snapshot rewritten", ErrNoSnapshot, r.Name)
	}
	r.Schema = SchemaVersion
	normaliseLists(r)
	fitRecord(r)
	return s.writeBoth(r)
}

// writeBoth writes r's .md and .json over the existing ones, .md first,
// each atomically, unless the snapshot was pruned meanwhile.
func (s *Store) writeBoth(r *Record) error {
	lang := r.Lang
	if lang != Russian {
		lang = English
	}
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	js = append(js, '\n')
	if len(js) > MaxRecordBytes {
		return fmt.Errorf("snapshot record is %d bytes, over the %d-byte limit", len(js), MaxRecordBytes)
	}
	jsPath := filepath.Join(s.Dir, r.Name+".json")
	// A snapshot pruned meanwhile stays pruned: rewriting it would bring
	// back a record the folder no longer counts.
	if _, err := os.Lstat(jsPath); err != nil {
		return fmt.Errorf("%w: %s was removed", ErrNoSnapshot, r.Name)
	}
	if err := WriteFileAtomic(filepath.Join(s.Dir, r.Name+".md"), RenderMarkdown(r, lang), 0o600); err != nil {
		return err
	}
	if err := WriteFileAtomic(jsPath, js, 0o600); err != nil {
		return err
	}
	_ = syncDir(s.Dir)
	return nil
}
