package gemini

import (
	"fmt"
	"strings"

	"github.com/compact-guard/compact-guard/settings"

	"github.com/compact-guard/compact-guard/snapshot/health"
)

// Doctor's checks for Gemini CLI (specs/install.md DR-46, DR-47): its
// events are its own (PreCompress, BeforeAgent), its timeouts milliseconds
// and its trigger matcher one exact string, so its entries are judged here
// rather than by checkRegistration's Claude Code rules.

// checkGeminiEntry judges one entry of ours in a Gemini CLI settings file
// (DR-46).
func checkGeminiEntry(env settings.DoctorEnv, src settings.Source, h settings.Entry, projDir string) health.Result {
	matcher := h.Matcher
	if !h.HasMatcher {
		matcher = "*"
	}
	timeout := "default timeout 60000 ms"
	if h.Timeout != "" {
		timeout = "timeout " + h.Timeout + " ms"
	}
	r := settings.NewEntryReport(fmt.Sprintf("  %s [%s] runs %s (%s)", h.Event, matcher, h.Command, timeout), src)
	var spec *settings.Hook
	for i, s := range GeminiHooks {
		if s.Event == h.Event && s.Sub == h.Sub {
			spec = &GeminiHooks[i]
		}
	}
	if spec == nil {
		r.Warn(fmt.Sprintf("compact-guard %s is not meant for Gemini CLI's %s", h.Sub, h.Event), "remove it from "+src.Path)
		return r.Finish()
	}
	if prog, ok := settings.CheckProgram(r, env, src, h, projDir); ok && env.Exe != "" && !settings.SameFile(prog, env.Exe) {
		r.Warn("another compact-guard than this one ("+env.Exe+")", r.Inst()+" to use this one")
	}
	// Gemini CLI 0.61.0 compares a trigger matcher as one exact string.
	switch m := strings.TrimSpace(h.Matcher); {
	case m == "" || m == "*":
	case spec.Event == "PreCompress" && (m == "auto" || m == "manual"):
		r.Warn(fmt.Sprintf("matcher %q: Gemini CLI runs it for %s compressions only", m, m), r.Inst())
	case spec.Event == "PreCompress":
		r.Fail(fmt.Sprintf("matcher %q matches neither \"auto\" nor \"manual\": Gemini CLI compares it as one exact string", m), r.Inst())
	}
	if h.Timeout != "" {
		t, ok := h.TimeoutSeconds() // the number as written: milliseconds here
		switch {
		case !ok || t <= 0:
			r.Fail("the timeout is not a positive number", r.Inst())
		case spec.Sub == "precompact" && t < 5000:
			r.Fail(fmt.Sprintf("timeout %s ms is too short: Gemini CLI counts milliseconds, and the snapshot may be cut off", h.Timeout), r.Inst())
		case t < 1000:
			r.Fail(fmt.Sprintf("timeout %s ms: Gemini CLI counts milliseconds", h.Timeout), r.Inst())
		}
	}
	return r.Finish()
}

// checkGeminiCoverage reports a registration missing from every file
// (DR-47): without PreCompress no snapshot is taken, without BeforeAgent
// the pointer never reaches the model (Gemini CLI has no event after a
// compression).
func checkGeminiCoverage(regs []settings.Registration) []health.Result {
	var out []health.Result
	for _, s := range GeminiHooks {
		n := 0
		for _, r := range regs {
			if r.Entry.Event == s.Event && r.Entry.Sub == s.Sub {
				n++
			}
		}
		if n > 0 {
			continue
		}
		why := "no snapshot is taken before a compression"
		if s.Sub == "watch" {
			why = "the compressed session is never pointed at its snapshot (BeforeAgent is Gemini CLI's only channel after a compression)"
		}
		out = append(out, health.Result{Status: health.Fail, Text: fmt.Sprintf("no %s hook runs compact-guard %s: %s", s.Event, s.Sub, why),
			Fix: "run 'compact-guard install --agent gemini'"})
	}
	return out
}
