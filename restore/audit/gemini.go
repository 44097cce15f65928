package audit

import (
	"context"
	"time"

	gemini "github.com/compact-guard/compact-guard/clients/gemini/reader"
	"github.com/compact-guard/compact-guard/selectsnap"
	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/transcript"
)

// FormatGemini names Gemini CLI's chats in audit's reports (AU-26). It is
// not a format of transcript's readers table: clients/gemini/reader reads the
// chat whole.
const FormatGemini transcript.Format = "gemini"

// readGeminiSession audits one Gemini CLI chat (AU-26 to AU-28): each
// compression the chat shows (TR-82), the snapshot taken for it (SS-40),
// and, in the client's own terms, whether the pointer reached the model:
// the chat records a BeforeAgent hook's context in the content of the
// prompt it was added to (TR-87), so the first prompt after the
// compression says it — "yes" with the snapshot it names, "no" when that
// prompt carries none, "unknown" while no prompt came after it.
func readGeminiSession(path string, st *snapshot.Store, entries []snapshot.Entry) Session {
	s := Session{Agent: FormatGemini, Transcript: path, Compactions: []Compaction{}}
	if l := clients[FormatGemini]; l.Session != nil {
		if id, ok := l.Session(path); ok {
			s.SessionID = id
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), Deadline)
	defer cancel()
	chat, err := gemini.Read(ctx, path, gemini.Options{})
	if chat != nil && chat.SessionID != "" {
		s.SessionID = chat.SessionID
	}
	if err != nil {
		s.Error = err.Error()
		if chat == nil {
			return s
		}
		s.Stopped, s.Partial = true, true
	}
	handed := handedOut(st, sessionRecords(st, entries, s.SessionID), s.SessionID)
	for i, c := range chat.Compressions {
		var after, next time.Time
		if i > 0 {
			after = chat.Compressions[i-1].Time
		}
		if i+1 < len(chat.Compressions) {
			next = chat.Compressions[i+1].Time
		}
		a := Compaction{Index: i + 1, Time: c.Time, Delivered: "unknown"}
		if st != nil {
			if choice, err := selectsnap.ForGeminiCompression(st, s.SessionID, after, c.Time, chat.Responses); err == nil && choice != nil {
				a.Snapshot, a.Trigger = choice.Record.Name, choice.Record.Trigger
			}
		}
		a.Handed, a.HandedEvent = handed.in(c.Time, next)
		geminiDelivered(chat.Turns, c.Time, next, &a)
		a.Own = a.Named != "" && a.Named == a.Snapshot
		a.Foreign = a.Named != "" && !a.Own
		s.Compactions = append(s.Compactions, a)
	}
	return s
}

// geminiDelivered judges the first prompt after a compression at from
// (before the next one at to, when there is one): AU-27.
func geminiDelivered(turns []gemini.Turn, from, to time.Time, a *Compaction) {
	for _, t := range turns {
		if !t.Time.After(from) {
			continue
		}
		if !to.IsZero() && t.Time.After(to) {
			break
		}
		a.Delivered = "no"
		for _, c := range t.Contexts {
			if name := selectsnap.NamedSnapshot(c); name != "" {
				a.Delivered, a.Named = "yes", name
				a.Contexts++
			}
		}
		return
	}
}
