package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"time"
)

// startWindow bounds how much of a transcript's start Started reads: the
// first entries are short (a queue operation, a session's meta), and a
// line longer than this is passed over.
const startWindow = 1 << 20

// Started returns when the session began: the top-level "timestamp" of the
// first line, within the file's first MiB, that has one (TR-61). Claude
// Code's first line is a queue operation or a summary, Codex CLI's its
// session_meta, Qwen Code's its first record; a session resumed in the same
// file keeps its first entry. Zero, with no error, when none of those lines
// holds a timestamp. A handoff block dated before it cannot be this
// session's plan (specs/handoff.md HO-11).
func (f *File) Started() (time.Time, error) {
	// The first entries are short: 64 KiB holds them, and only a long first
	// line (a summary of a resumed session) costs the whole window.
	for _, n := range []int64{64 << 10, startWindow} {
		t, err := f.startedWithin(n)
		if err != nil || !t.IsZero() || f.size <= n {
			return t, err
		}
	}
	return time.Time{}, nil
}

// startedWithin is Started over the file's first n bytes.
func (f *File) startedWithin(n int64) (time.Time, error) {
	buf := make([]byte, min(f.size, n))
	got, err := f.f.ReadAt(buf, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return time.Time{}, err
	}
	buf = buf[:got]
	for len(buf) > 0 {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			break // a line cut by the window, or one not ended yet
		}
		line := bytes.TrimSpace(buf[:i])
		buf = buf[i+1:]
		if !bytes.Contains(line, []byte(`"timestamp"`)) {
			continue
		}
		var e struct {
			Timestamp string `json:"timestamp"`
		}
		if json.Unmarshal(line, &e) != nil || e.Timestamp == "" {
			continue
		}
		if t, err := time.Parse(time.RFC3339Nano, e.Timestamp); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, nil
}
