package reader

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
)

// fillTail is how much of a chat file's end LastFill looks at: a gemini
// message record with its tool calls and their results is kilobytes, and
// the one it wants is among the last few.
const fillTail = 1 << 20

// LastFill is the prompt token count Gemini CLI compares with its
// compression threshold at the next request, as far as the chat file tells
// it (TR-86): the last response's tokens.input (its promptTokenCount), and
// the model that gave it; but when the client wrote the whole history
// after that response (a resume, a compression: it then counts the history
// itself, about four characters a token), the length of that history line
// over four, which is no less than the client's estimate. It reads only the
// file's last MiB, so that a hook on every model request costs little; ok
// is false when that holds neither.
func LastFill(path string) (tokens int64, model string, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, "", false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
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
			return int64(len(line)) / 4, "", true
		}
		if r.ID != nil && r.Type == "gemini" && r.Tokens != nil {
			return r.Tokens.Input, r.Model, true
		}
	}
	return 0, "", false
}
