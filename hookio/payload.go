package hookio

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
	"golang.org/x/text/encoding/unicode"
)

// MaxPayloadBytes bounds what a hook reads from stdin; Claude Code's payloads
// are a few hundred bytes, so anything near this is not a payload.
const MaxPayloadBytes = 16 << 20

// EnvCodePage overrides the legacy code page used for stdin that is neither
// UTF-8 nor UTF-16 (a Windows code page number such as 1251).
const EnvCodePage = "COMPACT_GUARD_CODEPAGE"

// Payload is the JSON Claude Code writes to a hook's stdin. Fields that were
// absent, null or of the wrong type stay empty.
type Payload struct {
	SessionID          string
	TranscriptPath     string
	Cwd                string
	HookEventName      string
	Trigger            string
	CustomInstructions *string
	PromptID           string
	// TurnID is Codex CLI's turn_id (PreCompact, PostCompact): the turn
	// being processed, which it names as Claude Code names prompt_id.
	TurnID         string
	Source         string
	CompactSummary *string
	// StopHookActive is Stop's stop_hook_active: the client is already
	// continuing because a Stop hook held the stop (watch WA-10).
	StopHookActive bool
	// Reason, Phase and Implementation are the lifecycle metadata newer
	// Codex CLI sources give PreCompact and PostCompact ("user_requested",
	// "manual", "responses"): kept for the log line (specs/postcompact.md
	// PO-C17).
	Reason, Phase, Implementation string
	// Status and Error are how newer Codex CLI sources end a compaction in
	// PostCompact: "failed" with the error for one that did not complete
	// (PO-C17). Empty from every client that sends none.
	Status string
	Error  *string
	// Encoding names how stdin was decoded ("utf-8", "utf-16le", "windows-1251", ...).
	Encoding string
	// Warnings lists fields that were present but unusable.
	Warnings []string
}

// compactionEnded are the PostCompact statuses of a compaction that did not
// complete (PO-C17): Codex CLI's "failed", and the words for one stopped
// before its end.
var compactionEnded = map[string]bool{"failed": true, "failure": true, "error": true,
	"cancelled": true, "canceled": true, "interrupted": true, "aborted": true}

// CompactionFailed reports whether a PostCompact payload says that its
// compaction did not complete — a status of compactionEnded, or an error
// that is not empty — and why, for the log (PO-C17). A payload with neither
// field (every client before them) is a completed compaction.
func (p Payload) CompactionFailed() (bool, string) {
	status := strings.ToLower(strings.TrimSpace(p.Status))
	failed := compactionEnded[status]
	why := ""
	if p.Error != nil && strings.TrimSpace(*p.Error) != "" {
		failed, why = true, strings.TrimSpace(*p.Error)
	}
	if !failed {
		return false, ""
	}
	if status == "" {
		status = "no status"
	}
	if why != "" {
		status += ": " + why
	}
	return true, status
}

// ErrPayload wraps every reason a payload could not be parsed.
var ErrPayload = errors.New("payload")

// ReadPayload reads and decodes a hook payload. It returns what it could
// parse together with an error wrapping ErrPayload when stdin was empty, too
// large or not a JSON object: hooks carry on with what they have. It does not
// depend on stdin being closed: reading stops at EOF, as soon as what arrived
// is a whole JSON object, or when ctx ends.
func ReadPayload(ctx context.Context, r io.Reader, codePage int) (Payload, error) {
	var p Payload
	if r == nil {
		return p, fmt.Errorf("%w: no stdin", ErrPayload)
	}
	raw, err := ReadStdin(ctx, r, codePage)
	if err != nil {
		return p, err
	}
	text, enc := decodeStdin(raw, codePage)
	p.Encoding = enc
	text = bytes.TrimSpace(text)
	if len(text) == 0 {
		return p, fmt.Errorf("%w: stdin is empty", ErrPayload)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(text, &fields); err != nil {
		return p, fmt.Errorf("%w: not a JSON object: %v", ErrPayload, err)
	}
	str := func(key string, dst *string) {
		v, ok := fields[key]
		if !ok || string(v) == "null" {
			return
		}
		if err := json.Unmarshal(v, dst); err != nil {
			p.Warnings = append(p.Warnings, fmt.Sprintf("payload field %s is not a string", key))
		}
	}
	optStr := func(key string) *string {
		v, ok := fields[key]
		if !ok || string(v) == "null" {
			return nil
		}
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			p.Warnings = append(p.Warnings, fmt.Sprintf("payload field %s is not a string", key))
			return nil
		}
		return &s
	}
	str("session_id", &p.SessionID)
	str("transcript_path", &p.TranscriptPath)
	str("cwd", &p.Cwd)
	str("hook_event_name", &p.HookEventName)
	str("trigger", &p.Trigger)
	str("prompt_id", &p.PromptID)
	str("turn_id", &p.TurnID)
	str("source", &p.Source)
	str("reason", &p.Reason)
	str("phase", &p.Phase)
	str("implementation", &p.Implementation)
	str("status", &p.Status)
	p.Error = optStr("error")
	if v, ok := fields["stop_hook_active"]; ok && string(v) == "true" {
		p.StopHookActive = true
	}
	p.CustomInstructions = optStr("custom_instructions")
	p.CompactSummary = optStr("compact_summary")
	return p, nil
}

// Prompt is what names the prompt a hook runs in: prompt_id (Claude
// Code, Qwen Code), else Codex's turn_id (SS-8a).
func (p Payload) Prompt() string {
	if p.PromptID != "" {
		return p.PromptID
	}
	return p.TurnID
}

// Session is the session the hook runs for: the payload's session_id,
// else CLAUDE_CODE_SESSION_ID from the hook's environment (getenv).
func (p Payload) Session(getenv func(string) string) string {
	if p.SessionID != "" {
		return p.SessionID
	}
	return getenv("CLAUDE_CODE_SESSION_ID")
}

// SafeSessionID reports a session id a file name can hold: 1 to 128 of
// [A-Za-z0-9-] (a loop: the regexp x{1,128} cost every process start
// 0.2 ms to compile).
func SafeSessionID(s string) bool {
	if len(s) == 0 || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// ReadStdin collects stdin in a goroutine so that a writer that never closes
// it cannot hold a hook past its deadline.
func ReadStdin(ctx context.Context, r io.Reader, codePage int) ([]byte, error) {
	type chunk struct {
		b   []byte
		err error
	}
	ch := make(chan chunk, 4)
	go func() {
		for {
			buf := make([]byte, 64<<10)
			n, err := r.Read(buf)
			if n > 0 {
				ch <- chunk{b: buf[:n]}
			}
			if err != nil {
				ch <- chunk{err: err}
				return
			}
		}
	}()
	var raw []byte
	for {
		select {
		case c := <-ch:
			if c.err == io.EOF {
				return raw, nil
			}
			if c.err != nil {
				return raw, fmt.Errorf("%w: reading stdin: %v", ErrPayload, c.err)
			}
			raw = append(raw, c.b...)
			if len(raw) > MaxPayloadBytes {
				return nil, fmt.Errorf("%w: stdin larger than %d bytes", ErrPayload, MaxPayloadBytes)
			}
			if wholeObject(raw, codePage) {
				return raw, nil
			}
		case <-ctx.Done():
			if len(raw) == 0 {
				return nil, fmt.Errorf("%w: stdin is empty (not closed before the deadline)", ErrPayload)
			}
			return raw, nil
		}
	}
}

// wholeObject reports whether raw already holds one complete JSON object;
// the cheap test on the last byte keeps this linear for large payloads.
func wholeObject(raw []byte, codePage int) bool {
	i := len(raw) - 1
	for i >= 0 && (raw[i] == 0 || raw[i] == ' ' || raw[i] == '\n' || raw[i] == '\r' || raw[i] == '\t') {
		i--
	}
	if i < 0 || raw[i] != '}' {
		return false
	}
	text, _ := decodeStdin(raw, codePage)
	return json.Valid(bytes.TrimSpace(text))
}

// decodeStdin turns stdin bytes into UTF-8: a BOM wins and is stripped; valid
// UTF-8 is kept; UTF-16 without a BOM is recognised by its NUL bytes; UTF-8
// with a few invalid bytes stays UTF-8, each run of invalid bytes becoming
// U+FFFD, so that one stray byte does not change every other character
// (RB-23); only text that is clearly not UTF-8 is decoded from the legacy
// code page (PowerShell 5 and cmd.exe pipe text that way).
func decodeStdin(b []byte, codePage int) ([]byte, string) {
	switch {
	case bytes.HasPrefix(b, []byte{0xEF, 0xBB, 0xBF}):
		return b[3:], "utf-8-bom"
	case bytes.HasPrefix(b, []byte{0xFF, 0xFE}):
		return decodeWith(unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM), b[2:], "utf-16le")
	case bytes.HasPrefix(b, []byte{0xFE, 0xFF}):
		return decodeWith(unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM), b[2:], "utf-16be")
	}
	if le, be := utf16Guess(b); le {
		return decodeWith(unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM), b, "utf-16le")
	} else if be {
		return decodeWith(unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM), b, "utf-16be")
	}
	if utf8.Valid(b) {
		return b, "utf-8"
	}
	if mostlyUTF8(b) {
		return bytes.ToValidUTF8(b, []byte("\uFFFD")), "utf-8(invalid bytes replaced)"
	}
	enc, name := legacyEncoding(codePage)
	return decodeWith(enc, b, name)
}

// mostlyUTF8 reports text that is UTF-8 with some invalid bytes: it holds
// at least one valid multi-byte UTF-8 character, and no fewer of them than
// bytes that are not part of one. Text in a legacy code page almost never
// does: a byte above 0x7F there is a letter, and a letter followed by the
// continuation bytes UTF-8 needs (0x80–0xBF, mostly punctuation) is rare.
func mostlyUTF8(b []byte) bool {
	valid, invalid := 0, 0
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			invalid++
		} else {
			valid++
		}
		i += size
	}
	return valid > 0 && valid >= invalid
}

func decodeWith(enc encoding.Encoding, b []byte, name string) ([]byte, string) {
	out, err := enc.NewDecoder().Bytes(b)
	if err != nil {
		// Decoders replace what they cannot map; an error here means the
		// input was cut mid-character. Keep what decoded.
		return out, name + "(partial)"
	}
	return out, name
}

// utf16Guess reports UTF-16 without a BOM: JSON is mostly ASCII, so in
// UTF-16LE nearly every odd byte is NUL, in UTF-16BE every even one. UTF-8
// text never holds NUL.
func utf16Guess(b []byte) (le, be bool) {
	if len(b) < 2 {
		return false, false
	}
	var even, odd int
	n := len(b) &^ 1
	for i := 0; i < n; i += 2 {
		if b[i] == 0 {
			even++
		}
		if b[i+1] == 0 {
			odd++
		}
	}
	// A character such as U+4E00 or U+0400 puts a NUL on the other side
	// too, so a few are tolerated there.
	half := n / 2
	return odd*10 >= half*7 && even*4 <= half, even*10 >= half*7 && odd*4 <= half
}

// legacyEncoding maps a Windows code page number to its decoder. 0 means the
// platform default: the ANSI code page on Windows, Windows-1252 elsewhere,
// unless COMPACT_GUARD_CODEPAGE says otherwise.
func legacyEncoding(codePage int) (encoding.Encoding, string) {
	if codePage == 0 {
		codePage = defaultCodePage()
	}
	switch codePage {
	case 437:
		return charmap.CodePage437, "cp437"
	case 850:
		return charmap.CodePage850, "cp850"
	case 866:
		return charmap.CodePage866, "cp866"
	case 874:
		return charmap.Windows874, "windows-874"
	case 932:
		return japanese.ShiftJIS, "shift_jis"
	case 936:
		return simplifiedchinese.GBK, "gbk"
	case 949:
		return korean.EUCKR, "euc-kr"
	case 950:
		return traditionalchinese.Big5, "big5"
	case 1250:
		return charmap.Windows1250, "windows-1250"
	case 1251:
		return charmap.Windows1251, "windows-1251"
	case 1253:
		return charmap.Windows1253, "windows-1253"
	case 1254:
		return charmap.Windows1254, "windows-1254"
	case 1255:
		return charmap.Windows1255, "windows-1255"
	case 1256:
		return charmap.Windows1256, "windows-1256"
	case 1257:
		return charmap.Windows1257, "windows-1257"
	case 1258:
		return charmap.Windows1258, "windows-1258"
	}
	return charmap.Windows1252, "windows-1252"
}

func defaultCodePage() int {
	if v, err := strconv.Atoi(os.Getenv(EnvCodePage)); err == nil && v > 0 {
		return v
	}
	return platformCodePage()
}
