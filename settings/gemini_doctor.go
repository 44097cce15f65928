package settings

import (
	"fmt"
	"strings"

	"github.com/compact-guard/compact-guard/snapshot/health"
)

// Doctor's checks for Gemini CLI (specs/install.md DR-46, DR-47): its
// events are its own (PreCompress, BeforeAgent), its timeouts milliseconds
// and its trigger matcher one exact string, so its entries are judged here
// rather than by checkRegistration's Claude Code rules.

// checkGeminiEntry judges one entry of ours in a Gemini CLI settings file
// (DR-46).
func checkGeminiEntry(env DoctorEnv, src Source, h Entry, projDir string) health.Result {
	matcher := h.Matcher
	if !h.HasMatcher {
		matcher = "*"
	}
	timeout := "default timeout 60000 ms"
	if h.Timeout != "" {
		timeout = "timeout " + h.Timeout + " ms"
	}
	r := &entryReport{res: health.Result{Status: health.OK, Text: fmt.Sprintf("  %s [%s] runs %s (%s)", h.Event, matcher, h.Command, timeout)}, inst: installFix(src)}
	var spec *Hook
	for i, s := range GeminiHooks {
		if s.Event == h.Event && s.Sub == h.Sub {
			spec = &GeminiHooks[i]
		}
	}
	if spec == nil {
		r.warn(fmt.Sprintf("compact-guard %s is not meant for Gemini CLI's %s", h.Sub, h.Event), "remove it from "+src.Path)
		return finishCheck(r.res, r.whys, r.fixes)
	}
	if prog, ok := checkProgram(r, env, src, h, projDir); ok && env.Exe != "" && !sameFile(prog, env.Exe) {
		r.warn("another compact-guard than this one ("+env.Exe+")", r.inst+" to use this one")
	}
	// Gemini CLI 0.61.0 compares a trigger matcher as one exact string.
	switch m := strings.TrimSpace(h.Matcher); {
	case m == "" || m == "*":
	case spec.Event == "PreCompress" && (m == "auto" || m == "manual"):
		r.warn(fmt.Sprintf("matcher %q: Gemini CLI runs it for %s compressions only", m, m), r.inst)
	case spec.Event == "PreCompress":
		r.fail(fmt.Sprintf("matcher %q matches neither \"auto\" nor \"manual\": Gemini CLI compares it as one exact string", m), r.inst)
	}
	if h.Timeout != "" {
		t, ok := h.TimeoutSeconds() // the number as written: milliseconds here
		switch {
		case !ok || t <= 0:
			r.fail("the timeout is not a positive number", r.inst)
		case spec.Sub == "precompact" && t < 5000:
			r.fail(fmt.Sprintf("timeout %s ms is too short: Gemini CLI counts milliseconds, and the snapshot may be cut off", h.Timeout), r.inst)
		case t < 1000:
			r.fail(fmt.Sprintf("timeout %s ms: Gemini CLI counts milliseconds", h.Timeout), r.inst)
		}
	}
	if r.needInstall {
		r.fixes = append([]string{r.inst + strings.Join(r.installNotes, "")}, r.fixes...)
	}
	return finishCheck(r.res, r.whys, r.fixes)
}

// checkGeminiCoverage reports a registration missing from every file
// (DR-47): without PreCompress no snapshot is taken, without BeforeAgent
// the pointer never reaches the model (Gemini CLI has no event after a
// compression).
func checkGeminiCoverage(regs []Registration) []health.Result {
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
