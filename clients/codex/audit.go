package codex

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/compact-guard/compact-guard/restore/audit"
	"github.com/compact-guard/compact-guard/selectsnap"
	"github.com/compact-guard/compact-guard/settings"
	"github.com/compact-guard/compact-guard/transcript"
)

// sessions is the folder audit reads Codex CLI's rollouts from: its
// sessions (AU-14).
func sessions(h settings.Host) (string, error) {
	home, err := Home(h)
	return filepath.Join(home, "sessions"), err
}

// pointer is audit's word on a Codex CLI compaction (AU-15): Codex records
// that a hook context went into the model's history, with its length, and
// the snapshot is the one compact-guard's delivery record says it handed
// out.
func pointer(c audit.Compaction, snap string) (verdict, pointer, note string) {
	switch {
	case c.Delivered == "no" && c.Handed != "":
		return snap + "; Codex CLI recorded no hook context after it: the pointer compact-guard handed out (" + c.Handed + ") did not reach the model", "", ""
	case c.Delivered == "no":
		return snap + "; Codex CLI recorded no hook context after it: no pointer reached the model", "", ""
	case c.Delivered == "unknown":
		return fmt.Sprintf("%s; Codex CLI recorded %d hook context(s) of %d characters, and compact-guard recorded no pointer handed out for this compaction", snap, c.Contexts, c.ContextChars), "", ""
	case c.ContextChars > 0 && c.Named == c.Handed:
		note = fmt.Sprintf(" (Codex CLI recorded a hook context of %d characters; compact-guard's delivery record names the snapshot)", c.ContextChars)
	}
	return "", "", note
}

// layout is where audit finds Codex CLI's rollouts:
// sessions/YYYY/MM/DD/rollout-<local time>-<session id>.jsonl (AU-14).
var layout = audit.Layout{Title: "Codex CLI", Depth: 3, Session: func(path string) (string, bool) {
	base, ok := strings.CutSuffix(filepath.Base(path), ".jsonl")
	if !ok || !strings.HasPrefix(base, "rollout-") || len(base) < len("rollout-")+36 {
		return "", false
	}
	return base[len(base)-36:], true
}, Delivered: delivered}

// delivered judges Codex CLI's record (AU-15): every hook context it
// puts into the model's history is a developer message in the rollout,
// between this boundary and the next (a manual compaction's SessionStart
// runs at the next turn, still before the next boundary). Codex 0.169.0
// keeps only the length of such a text ("[elided N characters]"): the
// snapshot is then the one compact-guard's delivery record says it handed
// out for this compaction (AU-17). A text kept whole is read as Claude
// Code's is.
func delivered(ctx context.Context, _ string, f *transcript.File, c transcript.Compaction, end int64, a *audit.Compaction) {
	hcs, err := f.HookContexts(ctx, c.Offset, min(end, c.Offset+transcript.ContextWindow))
	if err != nil {
		return
	}
	a.Contexts = len(hcs)
	if len(hcs) == 0 {
		a.Delivered = "no"
		return
	}
	elided := false
	for _, hc := range hcs {
		a.ContextChars += hc.Chars
		switch name := selectsnap.NamedSnapshot(hc.Text); {
		case hc.Elided:
			elided = true
		case name != "":
			a.Delivered, a.Named = "yes", name
		case strings.Contains(hc.Text, "compact-guard"):
			a.Delivered, a.Notice = "yes", true
		}
	}
	if a.Delivered == "unknown" && elided && a.Handed != "" {
		a.Delivered, a.Named = "yes", a.Handed
	}
	if a.Delivered == "unknown" && !elided {
		a.Delivered = "no" // the contexts kept whole are none of ours
	}
}
