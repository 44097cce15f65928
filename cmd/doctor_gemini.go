package cmd

import (
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/compact-guard/compact-guard/cmd/internal/settings"
)

// Doctor's checks for Gemini CLI (specs/install.md DR-46 to DR-48): its
// events are its own (PreCompress, BeforeAgent), its timeouts milliseconds
// and its trigger matcher one exact string, so its entries are judged here
// rather than by checkRegistration's Claude Code rules.

// checkGeminiRegistration judges one entry of ours in a Gemini CLI
// settings file (DR-46).
func checkGeminiRegistration(src settingsSource, h settings.Entry, exe, projDir string, host settings.Host) doctorCheck {
	matcher := h.Matcher
	if !h.HasMatcher {
		matcher = "*"
	}
	timeout := "default timeout 60000 ms"
	if h.Timeout != "" {
		timeout = "timeout " + h.Timeout + " ms"
	}
	res := doctorCheck{Status: checkOK, Text: fmt.Sprintf("  %s [%s] runs %s (%s)", h.Event, matcher, h.Command, timeout)}
	var whys, fixes []string
	report := func(st checkStatus, why, fix string) {
		res.Status = max(res.Status, st)
		whys = append(whys, why)
		if fix != "" && !strings.Contains(strings.Join(fixes, "\n"), fix) {
			fixes = append(fixes, fix)
		}
	}
	inst := installFix(src)
	var spec *settings.Hook
	for i, s := range settings.GeminiHooks {
		if s.Event == h.Event && s.Sub == h.Sub {
			spec = &settings.GeminiHooks[i]
		}
	}
	if spec == nil {
		report(checkWarn, fmt.Sprintf("compact-guard %s is not meant for Gemini CLI's %s", h.Sub, h.Event), "remove it from "+src.Path)
		return finishCheck(res, whys, fixes)
	}
	prog := expandProgram(h.Program, projDir, host)
	if st, err := os.Stat(prog); err != nil {
		report(checkFail, fmt.Sprintf("%s does not exist", prog), inst+" to point it at "+orUnknown(exe))
	} else if st.IsDir() || runtime.GOOS != "windows" && st.Mode().Perm()&0o111 == 0 {
		report(checkFail, fmt.Sprintf("%s is not an executable file", prog), inst)
	} else if exe != "" && !sameFile(prog, exe) {
		report(checkWarn, "another compact-guard than this one ("+exe+")", inst+" to use this one")
	}
	// Gemini CLI 0.61.0 compares a trigger matcher as one exact string.
	switch m := strings.TrimSpace(h.Matcher); {
	case m == "" || m == "*":
	case spec.Event == "PreCompress" && (m == "auto" || m == "manual"):
		report(checkWarn, fmt.Sprintf("matcher %q: Gemini CLI runs it for %s compressions only", m, m), inst)
	case spec.Event == "PreCompress":
		report(checkFail, fmt.Sprintf("matcher %q matches neither \"auto\" nor \"manual\": Gemini CLI compares it as one exact string", m), inst)
	}
	if h.Timeout != "" {
		t, ok := h.TimeoutSeconds() // the number as written: milliseconds here
		switch {
		case !ok || t <= 0:
			report(checkFail, "the timeout is not a positive number", inst)
		case spec.Sub == "precompact" && t < 5000:
			report(checkFail, fmt.Sprintf("timeout %s ms is too short: Gemini CLI counts milliseconds, and the snapshot may be cut off", h.Timeout), inst)
		case t < 1000:
			report(checkFail, fmt.Sprintf("timeout %s ms: Gemini CLI counts milliseconds", h.Timeout), inst)
		}
	}
	return finishCheck(res, whys, fixes)
}

// checkGeminiCoverage reports a registration missing from every file
// (DR-47): without PreCompress no snapshot is taken, without BeforeAgent
// the pointer never reaches the model (Gemini CLI has no event after a
// compression).
func checkGeminiCoverage(regs []registration) []doctorCheck {
	var out []doctorCheck
	for _, s := range settings.GeminiHooks {
		n := 0
		for _, r := range regs {
			if r.H.Event == s.Event && r.H.Sub == s.Sub {
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
		out = append(out, doctorCheck{Status: checkFail, Text: fmt.Sprintf("no %s hook runs compact-guard %s: %s", s.Event, s.Sub, why),
			Fix: "run 'compact-guard install --agent gemini'"})
	}
	return out
}
