package hookio

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/encoding/unicode"
)

// rbPayloadStrings lists a payload's string fields by name.
func rbPayloadStrings(p Payload) map[string]string {
	m := map[string]string{
		"session_id": p.SessionID, "transcript_path": p.TranscriptPath, "cwd": p.Cwd,
		"hook_event_name": p.HookEventName, "trigger": p.Trigger, "prompt_id": p.PromptID,
		"source": p.Source,
	}
	if p.CustomInstructions != nil {
		m["custom_instructions"] = *p.CustomInstructions
	}
	if p.CompactSummary != nil {
		m["compact_summary"] = *p.CompactSummary
	}
	return m
}

// FuzzReadPayload feeds hook payload decoding arbitrary bytes and arbitrary
// field values (RB-1):
//   - ReadPayload never panics, and its error always wraps ErrPayload;
//   - every string it returns is valid UTF-8, whatever stdin held, and so is
//     what decodeStdin makes of anything but a UTF-8 BOM stream;
//   - a JSON object built from valid UTF-8 strings gives back exactly those
//     strings, as plain UTF-8 and behind each BOM (UTF-8, UTF-16LE as
//     PowerShell writes it, UTF-16BE), with no warning and no error.
//
// spec: RB-1 (PC-4, PC-5, PC-6)
func FuzzReadPayload(f *testing.F) {
	f.Add([]byte(`{"session_id":"abc","transcript_path":"/t.jsonl","trigger":"auto"}`),
		"0f3c2a1b-1111-2222-3333-444455556666", "/home/u/.claude/projects/p/s.jsonl", "/home/u/proj", "manual", uint16(0))
	f.Add([]byte("\xff\xfe{\x00}\x00"), "../../etc/passwd", `C:\Users\Пётр\Мой проект`, `C:\Users\Пётр`, "auto", uint16(1251))
	f.Add([]byte("{\"cwd\":\"C:\\\\\xcf\xb8\xf2\xf0\"}"), "a\x00b", "", "🙂", "", uint16(1251))
	f.Add([]byte("\xef\xbb\xbf\xff{}"), "\u2028\u202e\ufeff", "\\\\?\\C:\\x", "", "\"}", uint16(932))
	f.Add([]byte(`[{"session_id":1}]`), "", "", "", "", uint16(65535))
	f.Fuzz(func(t *testing.T, raw []byte, sid, path, cwd, trigger string, codePage uint16) {
		cp := int(codePage)
		if cp == 0 {
			cp = 1252 // 0 would read COMPACT_GUARD_CODEPAGE from the test's environment
		}
		if text, enc := decodeStdin(raw, cp); enc != "utf-8-bom" && !utf8.Valid(text) {
			t.Errorf("decodeStdin(%q) as %s gave invalid UTF-8 %q", raw, enc, text)
		}
		p, err := ReadPayload(context.Background(), bytes.NewReader(raw), cp)
		if err != nil && !errors.Is(err, ErrPayload) {
			t.Errorf("ReadPayload error %v does not wrap ErrPayload", err)
		}
		for k, v := range rbPayloadStrings(p) {
			if !utf8.ValidString(v) {
				t.Errorf("ReadPayload(%q): %s = %q is not valid UTF-8", raw, k, v)
			}
		}

		want := map[string]string{"session_id": sid, "transcript_path": path, "cwd": cwd,
			"trigger": trigger, "custom_instructions": sid + path, "hook_event_name": "PreCompact"}
		for _, v := range want {
			if !utf8.ValidString(v) {
				return // JSON cannot carry invalid UTF-8: json.Marshal would change it
			}
		}
		js, err := json.Marshal(want)
		if err != nil {
			t.Fatal(err)
		}
		variants := map[string][]byte{"utf-8": js, "utf-8-bom": append([]byte{0xEF, 0xBB, 0xBF}, js...)}
		for name, enc := range map[string]unicode.Endianness{"utf-16le-bom": unicode.LittleEndian, "utf-16be-bom": unicode.BigEndian} {
			b, err := unicode.UTF16(enc, unicode.UseBOM).NewEncoder().Bytes(js)
			if err != nil {
				t.Fatal(err)
			}
			variants[name] = b
		}
		for name, in := range variants {
			p, err := ReadPayload(context.Background(), bytes.NewReader(in), cp)
			if err != nil || len(p.Warnings) > 0 {
				t.Errorf("%s: ReadPayload(%s) = %v, warnings %q", name, js, err, p.Warnings)
				continue
			}
			got := rbPayloadStrings(p)
			for k, v := range want {
				if got[k] != v {
					t.Errorf("%s: %s = %q, want %q (payload %s)", name, k, got[k], v, js)
				}
			}
		}
	})
}
