// Package reader reads Gemini CLI's chat files
// (~/.gemini/tmp/<project>/chats/session-<time>-<sid8>.jsonl, specs/
// transcript.md TR-81 to TR-88) into the facts the other readers give
// (facts.Facts) and the compressions the file shows. It is a reader of
// its own, not a format of transcript's Extractor: a chat file is a log of
// records that update one another by id and replace the whole history with
// a "$set", so its facts come from the records as they end up, not from
// one line at a time.
package reader

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/compact-guard/compact-guard/transcript/facts"
)

// Ack is the model's turn Gemini CLI writes after a compression's summary
// (ChatCompressionService, 0.61.0): a user message followed by a gemini
// message with this text, in a "$set" of the messages, is a compression
// (TR-82).
const Ack = "Got it. Thanks for the additional context!"

// Compression is one compression the chat file shows (TR-82).
type Compression struct {
	// ID is the summary message's id, which stays the same when the
	// client writes the history again (a resume).
	ID string
	// Time is the summary message's timestamp: when the client compressed.
	Time time.Time
	// Offset is where the "$set" line that first held it starts.
	Offset int64
}

// Turn is one typed prompt's record: when, and the texts of the
// <hook_context> parts of its content that are not in its displayContent
// (a BeforeAgent hook's additionalContext, as the model got it).
type Turn struct {
	Time     time.Time
	Contexts []string
}

// Chat is what a chat file holds.
type Chat struct {
	SessionID string
	Facts     *facts.Facts
	// Compressions are in the order the file shows them.
	Compressions []Compression
	// Turns are the typed prompts' records, in file order, each with the
	// hook contexts the client added to it (TR-87).
	Turns []Turn
	// Responses are the times of the model's messages the client appended
	// (records of type gemini, not those a "$set" writes again), in file
	// order: a response after a snapshot says the session went on after it
	// (specs/selectsnap.md SS-43).
	Responses []time.Time
	// Size is how many bytes were read: the file's size when it was read
	// to its end.
	Size int64
}

// Options are what a read needs besides the file.
type Options struct {
	// Cwd makes a relative file path of an edit absolute: the model names
	// files as it likes ("hello.txt"), relative to the session's folder.
	Cwd string
	// MaxBytes bounds the read (0: no bound); a file read short says so in
	// its Stats.
	MaxBytes int64
}

// IsChatPath reports whether path is where Gemini CLI keeps a chat:
// …/.gemini/tmp/<project>/chats/session-….jsonl (TR-81).
func IsChatPath(path string) bool {
	p := filepath.ToSlash(path)
	base := filepath.Base(p)
	return strings.HasPrefix(base, "session-") && strings.HasSuffix(base, ".jsonl") &&
		strings.Contains(p, "/.gemini/tmp/") && strings.HasSuffix(filepath.ToSlash(filepath.Dir(p)), "/chats")
}

// IsChatStart reports whether the first line of a file is a chat's header
// record: {"sessionId", "projectHash", …} with no "type" (TR-81), which
// no other client's transcript starts with.
func IsChatStart(head []byte) bool {
	line, _, _ := bytes.Cut(head, []byte("\n"))
	var h struct {
		SessionID   *string         `json:"sessionId"`
		ProjectHash *string         `json:"projectHash"`
		Type        json.RawMessage `json:"type"`
	}
	if json.Unmarshal(bytes.TrimSpace(line), &h) != nil {
		return false
	}
	return h.SessionID != nil && h.ProjectHash != nil && h.Type == nil
}

// Read reads the chat file at path.
func Read(ctx context.Context, path string, opt Options) (*Chat, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadFrom(ctx, f, opt)
}

// ReadFrom reads a chat file from r.
func ReadFrom(ctx context.Context, r io.Reader, opt Options) (*Chat, error) {
	if opt.MaxBytes > 0 {
		r = io.LimitReader(r, opt.MaxBytes)
	}
	rd := &reader{opt: opt, calls: map[string]*call{}, seen: map[string]bool{}}
	br := bufio.NewReaderSize(r, 64<<10)
	var off int64
	for {
		if err := ctx.Err(); err != nil {
			return rd.chat(off), err
		}
		line, long, err := readLine(br)
		n := int64(len(line)) + long
		if n == 0 && err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return rd.chat(off), err
		}
		last := errors.Is(err, io.EOF)
		rd.st.Lines++
		switch {
		case long > 0:
			rd.st.SkippedLong++
		default:
			rd.line(bytes.TrimSuffix(line, []byte("\r")), off, last)
		}
		if !last && (err == nil || long > 0) {
			n++ // the '\n'
		}
		off += n
		if last {
			break
		}
	}
	return rd.chat(off), nil
}

// readLine reads one line without its '\n'. A line over MaxLineBytes is
// passed over unread (TR-11): line is nil and long counts its bytes.
func readLine(br *bufio.Reader) (line []byte, long int64, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if long == 0 && len(line)+len(chunk) <= facts.MaxLineBytes {
			line = append(line, chunk...)
		} else {
			long += int64(len(line) + len(chunk))
			line = nil
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == nil:
			if long > 0 {
				return nil, long - 1, nil
			}
			return line[:len(line)-1], 0, nil
		default:
			return line, long, err
		}
	}
}
