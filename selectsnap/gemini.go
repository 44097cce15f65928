package selectsnap

import (
	"time"

	"github.com/compact-guard/compact-guard/snapshot"
)

// GeminiChoice is the snapshot a Gemini CLI compression points to.
type GeminiChoice struct {
	Record *snapshot.Record
	Entry  snapshot.Entry
	// Delivered is set when the snapshot was already handed over: the
	// pointer goes once (SS-40).
	Delivered bool
}

// ForGeminiCompression chooses the snapshot of the compression the chat
// file shows at compressedAt, the previous one (if any) at after
// (specs/selectsnap.md SS-40 to SS-42): the newest snapshot of this session
// (sid8 from the name, then the session id byte for byte) taken by a
// PreCompress in (after, compressedAt]. Gemini CLI awaits PreCompress
// before it compresses and before every other request, so that snapshot
// was taken for this compression; one taken after it was taken for a
// PreCompress that compressed nothing, and one before after belongs to an
// earlier compression. nil when there is none: never another
// compression's. responses are the times of the model's responses the
// chat shows (gemini.Chat.Responses): when one lies between that snapshot
// and the compression, the session went on after the snapshot, whose
// PreCompress then compressed nothing, and the compression has none of
// its own (SS-43).
func ForGeminiCompression(store *snapshot.Store, sessionID string, after, compressedAt time.Time, responses []time.Time) (*GeminiChoice, error) {
	if sessionID == "" {
		return nil, nil
	}
	es, err := store.Entries()
	if err != nil {
		return nil, err
	}
	sid8 := snapshot.SID8(sessionID)
	for _, e := range es { // newest first
		if e.SID8 != sid8 || e.Ahead {
			continue
		}
		// The name's second bounds the record's time from below.
		if e.Time.After(compressedAt) {
			continue
		}
		if e.Time.Add(time.Second).Before(after) {
			break
		}
		r, err := store.Load(e.Name)
		if err != nil || r.SessionID != sessionID || r.HookEvent != "PreCompress" {
			continue
		}
		if r.CreatedAt.After(compressedAt) || !r.CreatedAt.After(after) {
			continue
		}
		if wentOnBetween(responses, r.CreatedAt, compressedAt) {
			// Every older snapshot is older than that response too.
			return nil, nil
		}
		d, derr := snapshot.ReadDelivery(store.Dir, e.Name, sessionID)
		return &GeminiChoice{Record: r, Entry: e, Delivered: d != nil || derr != nil}, nil
	}
	return nil, nil
}

// wentOnBetween reports whether a model response lies after from and
// before to: the client awaits PreCompress right before it compresses, and
// sends no model request between them (specs/selectsnap.md, Gemini CLI's
// row), so a response there was the answer to a request whose PreCompress
// compressed nothing.
func wentOnBetween(responses []time.Time, from, to time.Time) bool {
	for _, t := range responses {
		if t.After(from) && t.Before(to) {
			return true
		}
	}
	return false
}
