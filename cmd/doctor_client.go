package cmd

import (
	"fmt"

	"github.com/compact-guard/compact-guard/cmd/internal/settings"
	"github.com/compact-guard/compact-guard/snapshot/health"
)

// checkClientKnowsEvents fails for each settings file that registers
// compact-guard for an event the Claude Code on PATH does not know: that
// release loads no hook at all from such a file, so compact-guard's other
// hooks do not run either (DR-14).
func checkClientKnowsEvents(regs []registration, version func() (string, string)) []health.Result {
	if version == nil {
		return nil
	}
	client, from := version()
	if client == "" {
		return nil
	}
	var out []health.Result
	seen := map[string]bool{}
	for _, r := range regs {
		for _, h := range settings.Hooks {
			if r.H.Event != h.Event || h.KnownTo(client) || seen[r.Source.Path+h.Event] {
				continue
			}
			seen[r.Source.Path+h.Event] = true
			out = append(out, health.Result{Status: health.Fail,
				Text: fmt.Sprintf("%s registers %s, which Claude Code %s (%s) does not know (it came in %s): that release loads no hook from this file",
					r.Source.Path, h.Event, client, from, h.Since),
				Fix: installFix(r.Source) + " (it leaves " + h.Event + " out for this release), or update Claude Code"})
		}
	}
	return out
}
