package hookio

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
)

func encodeUTF16(t *testing.T, s string, order unicode.Endianness, bom bool) []byte {
	t.Helper()
	policy := unicode.IgnoreBOM
	if bom {
		policy = unicode.UseBOM
	}
	b, err := unicode.UTF16(order, policy).NewEncoder().Bytes([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func encode1251(t *testing.T, s string) []byte {
	t.Helper()
	b, err := charmap.Windows1251.NewEncoder().Bytes([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// spec: PC-5, RB-23
func TestDecodeStdin(t *testing.T) {
	const js = `{"session_id":"s-1","cwd":"C:\\Users\\Иван\\My Project"}`
	tests := []struct {
		name     string
		in       []byte
		codePage int
		want     string
		enc      string
	}{
		{"utf-8", []byte(js), 0, js, "utf-8"},
		{"utf-8 with BOM", append([]byte{0xEF, 0xBB, 0xBF}, js...), 0, js, "utf-8-bom"},
		{"utf-16le with BOM (PowerShell)", encodeUTF16(t, js, unicode.LittleEndian, true), 0, js, "utf-16le"},
		{"utf-16be with BOM", encodeUTF16(t, js, unicode.BigEndian, true), 0, js, "utf-16be"},
		{"utf-16le without BOM", encodeUTF16(t, js, unicode.LittleEndian, false), 0, js, "utf-16le"},
		{"utf-16be without BOM", encodeUTF16(t, js, unicode.BigEndian, false), 0, js, "utf-16be"},
		{"windows-1251 code page", encode1251(t, js), 1251, js, "windows-1251"},
		// U+4E00 and U+0400 have a zero low byte: a NUL on the "wrong" side.
		{"utf-16le without BOM, characters with a zero byte", encodeUTF16(t, `{"session_id":"s-1","cwd":"C:\\一\\Ѐ"}`, unicode.LittleEndian, false), 0, `{"session_id":"s-1","cwd":"C:\\一\\Ѐ"}`, "utf-16le"},
		{"utf-16be without BOM, characters with a zero byte", encodeUTF16(t, `{"session_id":"s-1","cwd":"C:\\一\\Ѐ"}`, unicode.BigEndian, false), 0, `{"session_id":"s-1","cwd":"C:\\一\\Ѐ"}`, "utf-16be"},
		{"legacy bytes default to windows-1252 off Windows", []byte("{\"a\":\"caf\xe9\"}"), 1252, `{"a":"café"}`, "windows-1252"},
		// spec: RB-23
		{"utf-8 with one invalid byte stays utf-8", []byte("{\"session_id\":\"сессия-№1\",\"cwd\":\"/x\xff\"}"), 1252, "{\"session_id\":\"сессия-№1\",\"cwd\":\"/x\ufffd\"}", "utf-8(invalid bytes replaced)"},
		// spec: RB-23
		{"utf-8 with a cut character stays utf-8", []byte("{\"session_id\":\"é-1\",\"cwd\":\"/\xd0\"}"), 1251, "{\"session_id\":\"é-1\",\"cwd\":\"/\ufffd\"}", "utf-8(invalid bytes replaced)"},
		// spec: RB-23
		{"windows-1251 with a chance utf-8 pair is windows-1251", encode1251(t, `{"cwd":"C:\Users\Иван\Мои документы\ВЂ"}`), 1251, `{"cwd":"C:\Users\Иван\Мои документы\ВЂ"}`, "windows-1251"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, enc := decodeStdin(tt.in, tt.codePage)
			if string(got) != tt.want || enc != tt.enc {
				t.Errorf("decodeStdin = %q (%s), want %q (%s)", got, enc, tt.want, tt.enc)
			}
		})
	}
}

// spec: PC-4, PC-6, PC-8
func TestReadPayload(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    Payload
		wantErr string
		warns   int
	}{
		{
			name: "precompact manual",
			in:   `{"session_id":"abc","transcript_path":"/t.jsonl","cwd":"/p","prompt_id":"p1","hook_event_name":"PreCompact","trigger":"manual","custom_instructions":"focus"}`,
			want: Payload{SessionID: "abc", TranscriptPath: "/t.jsonl", Cwd: "/p", PromptID: "p1", HookEventName: "PreCompact", Trigger: "manual", CustomInstructions: ptr("focus")},
		},
		{
			name: "custom_instructions null and unknown fields",
			in:   `{"session_id":"abc","custom_instructions":null,"permission_mode":"default","extra":{"x":[1,2]}}`,
			want: Payload{SessionID: "abc"},
		},
		{
			name: "session start compact",
			in:   `{"session_id":"abc","hook_event_name":"SessionStart","source":"compact","model":"m"}`,
			want: Payload{SessionID: "abc", HookEventName: "SessionStart", Source: "compact"},
		},
		{
			name: "post compact summary",
			in:   `{"session_id":"abc","hook_event_name":"PostCompact","trigger":"auto","compact_summary":"sum"}`,
			want: Payload{SessionID: "abc", HookEventName: "PostCompact", Trigger: "auto", CompactSummary: ptr("sum")},
		},
		{
			name:  "wrong type field is ignored, the rest counts",
			in:    `{"session_id":42,"cwd":"/p","trigger":["auto"]}`,
			want:  Payload{Cwd: "/p"},
			warns: 2,
		},
		{name: "empty stdin", in: "", wantErr: "stdin is empty"},
		{name: "whitespace only", in: " \r\n\t", wantErr: "stdin is empty"},
		{name: "not json", in: "hello", wantErr: "not a JSON object"},
		{name: "json array", in: `[{"session_id":"abc"}]`, wantErr: "not a JSON object"},
		{name: "truncated", in: `{"session_id":"ab`, wantErr: "not a JSON object"},
		{name: "too large", in: `{"x":"` + strings.Repeat("a", MaxPayloadBytes) + `"}`, wantErr: "larger than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadPayload(context.Background(), strings.NewReader(tt.in), 0)
			if tt.wantErr != "" {
				if err == nil || !errors.Is(err, ErrPayload) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			if len(got.Warnings) != tt.warns {
				t.Errorf("warnings = %q, want %d", got.Warnings, tt.warns)
			}
			got.Warnings, got.Encoding = nil, ""
			if !payloadEqual(got, tt.want) {
				t.Errorf("payload = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// spec: PC-5
func TestReadPayloadWindows1251CyrillicPath(t *testing.T) {
	in := encode1251(t, `{"session_id":"abc","cwd":"C:\\Users\\Пётр\\Мой проект"}`)
	got, err := ReadPayload(context.Background(), bytes.NewReader(in), 1251)
	if err != nil {
		t.Fatal(err)
	}
	if got.Cwd != `C:\Users\Пётр\Мой проект` || got.Encoding != "windows-1251" {
		t.Fatalf("cwd = %q (%s)", got.Cwd, got.Encoding)
	}
}

func ptr(s string) *string { return &s }

func payloadEqual(a, b Payload) bool {
	eq := func(x, y *string) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	return a.SessionID == b.SessionID && a.TranscriptPath == b.TranscriptPath && a.Cwd == b.Cwd &&
		a.HookEventName == b.HookEventName && a.Trigger == b.Trigger && a.PromptID == b.PromptID &&
		a.Source == b.Source && eq(a.CustomInstructions, b.CustomInstructions) && eq(a.CompactSummary, b.CompactSummary)
}

// spec: PC-3
// Claude Code closes stdin after the payload, but a hook must not depend on
// it: a whole object ends the read at once, a partial one at the deadline.
func TestReadPayloadStdinLeftOpen(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		wantErr  bool
	}{
		{"whole object", `{"session_id":"abc","trigger":"auto"}` + "\n", false},
		{"half an object", `{"session_id":"abc","tri`, true},
		{"nothing", "", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel() // two of them wait out their deadline
			pr, pw := io.Pipe()
			defer pw.Close()
			go pw.Write([]byte(tt.in))
			deadline := time.Second
			if !tt.wantErr {
				deadline = time.Hour // must return without waiting for it
			}
			ctx, cancel := context.WithTimeout(context.Background(), deadline)
			defer cancel()
			p, err := ReadPayload(ctx, pr, 0)
			if tt.wantErr != (err != nil) {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if !tt.wantErr && p.SessionID != "abc" {
				t.Errorf("session id %q", p.SessionID)
			}
		})
	}
}
