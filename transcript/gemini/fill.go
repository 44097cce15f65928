package gemini

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"time"
)

// fillTail is how much of a chat file's end LastFill looks at: a gemini
// message record with its tool calls and their results is kilobytes, and
// the one it wants is among the last few.
const fillTail = 1 << 20

// LastFill is the prompt token count of the chat's last model response
// (tokens.input, the usageMetadata.promptTokenCount the client compares
// with its compression threshold) and the model that gave it (TR-86). It
// reads only the file's last MiB, so that a hook on every model request
// costs little; ok is false when that holds no response with tokens, or
// when a compression is dated after it (the count then predates it; a
// resume writes the history again with its old summaries, dated before).
func LastFill(path string) (tokens int64, model string, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, "", false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, "", false
	}
	from := max(fi.Size()-fillTail, 0)
	buf := make([]byte, fi.Size()-from)
	if _, err := f.ReadAt(buf, from); err != nil && err != io.EOF {
		return 0, "", false
	}
	if from > 0 {
		// The first line is cut: start at the next.
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			return 0, "", false
		}
		buf = buf[i+1:]
	}
	var newest time.Time // the newest summary in the lines after
	for len(buf) > 0 {
		i := bytes.LastIndexByte(bytes.TrimRight(buf, "\r\n"), '\n')
		line := bytes.TrimSpace(buf[i+1:])
		buf = buf[:max(i, 0)]
		if i < 0 {
			buf = nil
		}
		if !bytes.Contains(line, []byte(`"gemini"`)) && !bytes.Contains(line, []byte(`"$set"`)) {
			continue
		}
		var r record
		if json.Unmarshal(line, &r) != nil {
			continue
		}
		if r.Set != nil && r.Set.Messages != nil {
			rd := &reader{seen: map[string]bool{}}
			rd.history(*r.Set.Messages, 0)
			for _, c := range rd.comps {
				if c.Time.After(newest) {
					newest = c.Time
				}
			}
			continue
		}
		if r.ID != nil && r.Type == "gemini" && r.Tokens != nil {
			if newest.After(parseTime(r.Timestamp)) {
				return 0, "", false
			}
			return r.Tokens.Input, r.Model, true
		}
	}
	return 0, "", false
}
