package snapshot

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A snapshot exists when its .json does: an .md left without its .json (a
// save killed half-way) is no snapshot, neither listed nor loaded.
// spec: SF-2
func TestMarkdownAloneIsNoSnapshot(t *testing.T) {
	s := newStore(t)
	whole := mustSave(t, s, rec("aaaaaaaa-2", t0, ""), English)
	half := rec("bbbbbbbb-2", t0, "")
	mustSave(t, s, half, English)
	if err := os.Remove(filepath.Join(s.Dir, half.Name+".json")); err != nil {
		t.Fatal(err)
	}
	es, err := s.Entries()
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 1 || es[0].MDPath != whole {
		t.Errorf("entries %+v, want only %s", es, whole)
	}
	if _, err := s.Load(half.Name); err == nil {
		t.Errorf("%s loaded from its .md alone", half.Name)
	}
}

// schema is 1; a field a reader does not know is ignored (adding one does
// not change the schema), and a schema it does not know is refused.
// spec: SF-3
func TestSchemaVersioning(t *testing.T) {
	if SchemaVersion != 1 {
		t.Fatalf("schema %d, want 1", SchemaVersion)
	}
	s := newStore(t)
	r := rec("cccccccc-3", t0, "")
	mustSave(t, s, r, English)
	path := filepath.Join(s.Dir, r.Name+".json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`"schema": 1`)) {
		t.Fatalf("the record does not say schema 1:\n%s", b)
	}
	newer := bytes.Replace(b, []byte("{"), []byte(`{"a_field_added_later": {"x": [1, 2]},`), 1)
	if err := os.WriteFile(path, newer, 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := s.Load(r.Name)
	if err != nil || got.SessionID != r.SessionID {
		t.Fatalf("a record with a field added later: %v, %+v", err, got)
	}
	future := bytes.Replace(b, []byte(`"schema": 1`), []byte(`"schema": 2`), 1)
	if err := os.WriteFile(path, future, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Load(r.Name); err == nil || !strings.Contains(err.Error(), "unknown schema 2") {
		t.Errorf("schema 2 loaded: %v", err)
	}
}
