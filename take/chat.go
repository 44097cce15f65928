package take

import (
	"context"
	"fmt"
	"os"

	gemini "github.com/compact-guard/compact-guard/clients/gemini/reader"
	"github.com/compact-guard/compact-guard/transcript"
)

// readWholeChat reads a chat whose records update one another by id
// (Gemini CLI's, TR-88) as the transcript step does another client's
// (PC-45): whole (its facts are the session's), the edits' relative paths
// made absolute against the payload's cwd.
func readWholeChat(ctx context.Context, st *transcriptStep) (out transcriptOutcome) {
	out.agent = string(transcript.FormatGemini)
	out.facts = &transcript.Facts{}
	out.layout.segmentStart = -1
	out.layout.readTo = new(int64(0))
	fi, err := os.Stat(st.path)
	if err != nil || !fi.Mode().IsRegular() {
		out.warnings = append(out.warnings, fmt.Sprintf("transcript: %s is not a readable regular file", st.path))
		out.layout.incomplete = true
		return out
	}
	out.layout.size = fi.Size()
	st.size.Store(fi.Size())
	chat, err := gemini.Read(ctx, st.path, gemini.Options{Cwd: st.cwd, MaxBytes: fi.Size()})
	if chat != nil {
		out.facts = chat.Facts
		if u := out.facts.Usage; u != nil && u.Window == 0 && st.chatWindow != nil {
			// The file has no window; the limit is the client's own
			// (tokenLimit), which its threshold is a share of.
			u.Window = st.chatWindow(u.Model)
		}
		*out.layout.readTo = chat.Size
		if n := len(chat.Compressions); n > 0 {
			out.layout.segmentStart = chat.Compressions[n-1].Offset
		}
	}
	if err != nil {
		out.warnings = append(out.warnings, "transcript: "+err.Error())
		out.layout.incomplete = true
	}
	return out
}
