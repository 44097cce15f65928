package snapshot

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The one reader of the records read back: no file is fs.ErrNotExist, a
// file over the bound or not JSON is an error that says which, and what
// names the record only in a decode error.
//
// spec: SEC-13, SF-65
func TestReadJSONRecord(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var v struct {
		SessionID string `json:"session_id"`
	}
	if err := readJSONRecord(filepath.Join(dir, "none"), 64, "x", &v); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("no file: %v, want fs.ErrNotExist", err)
	}
	if err := readJSONRecord(write("ok", `{"session_id":"s-1"}`), 64, "x", &v); err != nil || v.SessionID != "s-1" {
		t.Errorf("a good record: %+v, %v", v, err)
	}
	big := write("big", `{"session_id":"`+strings.Repeat("a", 64)+`"}`)
	if err := readJSONRecord(big, 64, "x", &v); err == nil || !strings.Contains(err.Error(), "larger than 64 bytes") {
		t.Errorf("over the bound: %v", err)
	}
	bad := write("bad", `{"session_id":`)
	if err := readJSONRecord(bad, 64, "delivery record of n", &v); err == nil || !strings.HasPrefix(err.Error(), "delivery record of n: ") {
		t.Errorf("not JSON, named: %v", err)
	}
	if err := readJSONRecord(bad, 64, "", &v); err == nil || strings.HasPrefix(err.Error(), ": ") {
		t.Errorf("not JSON, bare: %v", err)
	}
}
