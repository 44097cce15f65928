package restore

import (
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/text/message"

	"github.com/compact-guard/compact-guard/selectsnap"
	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/snapshot/handoff"
	"github.com/compact-guard/compact-guard/snapshot/watch"
	"github.com/compact-guard/compact-guard/transcript/textcut"
)

// MaxNoticeChars caps a watch notice (WA-6).
const MaxNoticeChars = 600

// watchPathChars is where a path in a watch notice is cut.
const watchPathChars = 120

// NoticeInput is what a watch notice or the Stop gate's reason tells.
type NoticeInput struct {
	Fill   int64
	Window watch.Window
	// Told are the crossings the notice tells of.
	Told []watch.Crossing
	// Last is the last threshold (the Stop gate's).
	Last    int64
	Handoff HandoffStatus
	Lang    snapshot.Lang
	Now     time.Time
}

// HandoffStatus is what a notice says of the handoff.
type HandoffStatus struct {
	// StateFile is the state file as looked up now.
	StateFile snapshot.StateFile
	// Block is its newest handoff block, nil for none; Current whether it
	// counts (HO-4) against Since.
	Block   *handoff.Block
	Current bool
	Since   handoff.Since
	// Others counts the state file's blocks that are not this session's
	// (HO-10): with no Block of its own, the notice says so.
	Others int
}

// WatchNotice is the text a watch notice gives the model (WA-6): the fill
// against the window, the crossings told, where automatic compaction
// happens, whether a current handoff exists, and how a planned compaction
// goes. Statements of fact, at most MaxNoticeChars characters.
func WatchNotice(in NoticeInput) string {
	p := printer(in.Lang)
	var parts []string
	parts = append(parts, fillSentence(p, in))
	var crossed []string
	for _, c := range in.Told {
		crossed = append(crossed, p.Sprintf(mWatchCrossing, c.Tokens, clockUTC(c.At, in.Now)))
	}
	if len(crossed) > 0 {
		parts = append(parts, p.Sprintf(mWatchCrossed, strings.Join(crossed, ", ")))
	}
	parts = append(parts, autoSentence(p, in.Window), handoffSentence(p, in.Handoff, in.Now), p.Sprintf(mWatchHow))
	return capNotice(strings.Join(parts, " "))
}

// StopReason is the reason the Stop gate gives when it holds a stop
// (WA-10): the notice's facts, and that it holds this stop once.
func StopReason(in NoticeInput) string {
	p := printer(in.Lang)
	text := strings.Join([]string{
		p.Sprintf(mStopHeld, in.Last),
		fillSentence(p, in),
		autoSentence(p, in.Window),
		handoffSentence(p, in.Handoff, in.Now),
		p.Sprintf(mWatchHow),
	}, " ")
	return capNotice(text)
}

func fillSentence(p *message.Printer, in NoticeInput) string {
	pct := int64(0)
	if in.Window.Tokens > 0 {
		pct = in.Fill * 100 / in.Window.Tokens
	}
	return p.Sprintf(mWatchFill, in.Fill, pct, in.Window.Tokens, windowSource(in.Window.Source))
}

func autoSentence(p *message.Printer, w watch.Window) string {
	if w.AutoAt <= 0 {
		return p.Sprintf(mWatchAutoOff)
	}
	if s, ok := clientModeSentence(p, w); ok { // WA-21
		return s
	}
	return p.Sprintf(mWatchAuto, w.AutoAt)
}

func handoffSentence(p *message.Printer, h HandoffStatus, now time.Time) string {
	name := h.StateFile.Name
	if name == "" {
		name = DefaultStateFileName
	}
	path := inline(h.StateFile.Path, watchPathChars)
	b := h.Block
	switch {
	case h.StateFile.Path == "":
		return p.Sprintf(mHandoffNoFile, oneLine(name, watchPathChars))
	case b == nil && h.Others > 0:
		return p.Sprintf(mHandoffNotOwn, path, h.Others)
	case b == nil:
		return p.Sprintf(mHandoffNoBlock, path)
	case h.Current:
		return p.Sprintf(mHandoffCurrent, path, b.Line, clockUTC(b.Time, now))
	case !b.Complete():
		return p.Sprintf(mHandoffIncomplete, path, b.Line)
	}
	return p.Sprintf(mHandoffOlder, sincePhrase(p, h.Since, now), path, clockUTC(b.Time, now))
}

// windowSource says what the window came from (watch.Window.Source): our
// own words, with the model named as ident names it and a settings file's
// path quoted (SEC-35).
func windowSource(src string) string {
	if m, ok := strings.CutPrefix(src, "model "); ok {
		return "model " + ident(m, watchPathChars)
	}
	for _, setting := range []string{"autoCompactWindow in ", "modelSettings.autoCompactWindow in "} {
		if f, ok := strings.CutPrefix(src, setting); ok {
			return setting + inline(f, watchPathChars)
		}
	}
	return oneLine(src, watchPathChars)
}

// capNotice keeps a notice within MaxNoticeChars characters.
func capNotice(s string) string {
	if utf8.RuneCountInString(s) <= MaxNoticeChars {
		return s
	}
	cut, _ := textcut.Runes(s, MaxNoticeChars-len([]rune(textcut.Marker)))
	return cut + textcut.Marker
}

// clockUTC shows t in UTC as HH:MM on now's day, else with its date.
func clockUTC(t, now time.Time) string {
	t = t.UTC()
	if y, m, d := t.Date(); y == now.UTC().Year() && m == now.UTC().Month() && d == now.UTC().Day() {
		return t.Format("15:04 UTC")
	}
	return t.Format("2006-01-02 15:04 UTC")
}

// LateNote is the line put before a pointer handed over through
// UserPromptSubmit: that it comes with the first prompt after the
// compaction, and why — a reason of selectsnap.PointerFate (WA-11). version
// is the client that wrote the compaction's boundary, resumed when it was
// started anew.
func LateNote(why, version string, resumed, compacted time.Time, lang snapshot.Lang) string {
	p := printer(lang)
	v := ident(version, 40)
	var reason string
	switch why {
	case selectsnap.Resumed:
		reason = p.Sprintf(mLateResumed, clockUTC(resumed, compacted), v)
	case selectsnap.OldClient:
		reason = p.Sprintf(mLateOldClient, v)
	case selectsnap.NotDelivered:
		reason = p.Sprintf(mLateNotDelivered)
	default:
		reason = p.Sprintf(mLateNoRecord)
	}
	return p.Sprintf(mLate, reason)
}

// preparationLine is the pointer's line on how the compaction was prepared
// (PO-15): planned, with the handoff block; or an emergency or unplanned,
// with the fill and since when no handoff was current.
func preparationLine(p *message.Printer, prep *snapshot.Preparation, trigger string, at time.Time, itemChars int) string {
	if prep.Kind == snapshot.Planned && prep.Handoff != nil {
		h := prep.Handoff
		return p.Sprintf(mPlanned, inline(h.Heading, itemChars), inline(h.Path, 1<<12), h.Line, clockUTC(h.Time, at))
	}
	fill := p.Sprintf(mFillUnknown)
	switch pct := prep.Percent(); {
	case pct >= 0:
		fill = p.Sprintf(mAtPercent, pct, prep.Fill, prep.Window)
	case prep.Fill > 0:
		fill = p.Sprintf(mAtTokens, prep.Fill)
	}
	var h string
	since := handoff.Since{At: prep.Since, Kind: prep.SinceKind}
	switch b := prep.Handoff; {
	case b != nil && !b.Complete:
		h = p.Sprintf(mHandoffBlockBroken, b.Line)
	case b != nil && !prep.Since.IsZero():
		h = p.Sprintf(mNoHandoffOlder, sincePhrase(p, since, at), clockUTC(b.Time, at))
	case b == nil && prep.OtherBlocks > 0:
		h = p.Sprintf(mNoOwnBlock, prep.OtherBlocks)
	case !prep.Since.IsZero():
		h = p.Sprintf(mNoHandoffSince, sincePhrase(p, since, at))
	default:
		h = p.Sprintf(mNoHandoffBlock)
	}
	if prep.Kind == snapshot.Emergency {
		return p.Sprintf(mEmergency, fill, h)
	}
	t := p.Sprintf(mTriggerUnknown)
	switch trigger {
	case "manual":
		t = p.Sprintf(mTriggerManual)
	case "auto":
		t = p.Sprintf(mTriggerAuto)
	}
	return p.Sprintf(mUnplanned, t, fill, h)
}
