package transcript

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// spec: TR-61
// The session's start is the first timestamp among its first lines, in
// each client's transcript; lines without one (a summary) are passed over.
func TestStarted(t *testing.T) {
	for path, want := range map[string]string{
		"testdata/cc2.1.328/manual-compaction.jsonl":    "2026-12-01T05:08:50.683Z",
		"testdata/codex0.169.0/three-compactions.jsonl": "",
		"testdata/qwen0.24.4/two-compactions.jsonl":     "",
	} {
		f, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := f.Started()
		f.Close()
		if err != nil || got.IsZero() {
			t.Errorf("%s: %v, %v", path, got, err)
			continue
		}
		if w, _ := time.Parse(time.RFC3339Nano, want); want != "" && !got.Equal(w) {
			t.Errorf("%s: %s, want %s", path, got, w)
		}
	}
	dir := t.TempDir()
	for name, tc := range map[string]struct{ text, want string }{
		"summary first": {`{"type":"summary","summary":"x","leafUuid":"u"}` + "\n" + `{"type":"user","timestamp":"2026-11-30T09:00:00Z","message":{"timestamp":"1999-01-01T00:00:00Z"}}` + "\n", "2026-11-30T09:00:00Z"},
		"none":          {`{"type":"summary"}` + "\n", ""},
		"cut line":      {`{"type":"user","timestamp":"2026-11-30T09:00:00Z"`, ""},
		"empty":         {"", ""},
	} {
		p := filepath.Join(dir, name+".jsonl")
		os.WriteFile(p, []byte(tc.text), 0o600)
		f, err := Open(p)
		if err != nil {
			t.Fatal(err)
		}
		got, err := f.Started()
		f.Close()
		if w, _ := time.Parse(time.RFC3339, tc.want); err != nil || !got.Equal(w) {
			t.Errorf("%s: %v, %v; want %q", name, got, err, tc.want)
		}
	}
}
